"""Apple Ads claims (issue 14, part 3; docs/apple.md): the claim created with an iOS install
that brought an AdServices token, and the claim -> exchange -> record cycle that workers run.

The claim is added to the install's own write (a subscriber of InstallAttributed), so a token
is never lost between the install and its claim, and a repeat install (which publishes
nothing) never makes a second one. A worker takes a due claim with a conditional UPDATE (two
messages never exchange a token twice at once), calls Apple outside any transaction, logs the
attempt, and lets apple_ads.policy decide: re-attribute the install through tracking's
`install_reattribute`, retry later, or stop. The beat sweep re-sends what was lost.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apple_ads import client, enqueue, policy
from apple_ads.models import Attempt, Claim
from apple_ads.policy import Reading, State
from attribution_site.write_batch import WriteBatch
from tracking import services as tracking_services

logger = logging.getLogger(__name__)

# AdServices runs on iOS (and iPadOS, macOS): only the SDK's `ios` platform brings a token we
# exchange. Another platform's token is ignored, since Apple attributes only its own devices.
PLATFORMS = frozenset({"ios"})
SWEEP_BATCH = 1000


def claims_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: a claim for each new iOS install that brought a token, written in
    the install's own statement, and its first exchange sent after commit."""
    now = timezone.now()
    rows = [Claim(id=uuid.uuid4(), app_id=event.app_id, install_id=event.install_id,
                  token=event.attribution_token, state=State.PENDING, next_attempt_at=now,
                  received_at=now, updated_at=now)
            for event in events
            if event.attribution_token and event.platform in PLATFORMS]
    if not rows:
        return
    batch.insert(rows, ignore_conflicts=True)  # a fact published twice claims once
    claim_ids = [str(row.id) for row in rows]
    batch.after_commit(lambda: enqueue.claims_enqueue(claim_ids))


def claim_exchange(*, claim_id: uuid.UUID | str) -> Attempt | None:
    """Exchange one claim's token now, if it is due and nobody else holds it. Returns the
    attempt, or None when there was nothing to do. Never call inside a transaction: the call
    to Apple takes up to APPLE_ADS_TIMEOUT_SECONDS."""
    now = timezone.now()
    claim = Claim.objects.filter(id=claim_id).first()
    if claim is None or claim.state != State.PENDING:
        return None
    if claim.next_attempt_at is not None and claim.next_attempt_at > now:
        return None  # a duplicate message ahead of the schedule; its turn will come
    attempt = _claim(claim, now)
    if attempt is None:
        return None
    outcome = client.exchange(url=settings.APPLE_ADS_API_URL, token=claim.token,
                              timeout=settings.APPLE_ADS_TIMEOUT_SECONDS)
    return _record(claim, attempt, outcome)


def _claim(claim: Claim, now: datetime) -> Attempt | None:
    lease = timedelta(seconds=policy.lease_seconds(settings.APPLE_ADS_TIMEOUT_SECONDS))
    with transaction.atomic():
        taken = Claim.objects.filter(
            id=claim.id, state=State.PENDING, next_attempt_at__lte=now,
        ).update(state=State.SENDING, attempts_made=F("attempts_made") + 1,
                 lease_expires_at=now + lease, updated_at=now)
        if not taken:
            return None
        number = Claim.objects.values_list("attempts_made", flat=True).get(id=claim.id)
        return Attempt.objects.create(claim=claim, number=number, started_at=now)


def _record(claim: Claim, attempt: Attempt, outcome: policy.Outcome) -> Attempt:
    verdict = policy.judge(outcome)
    now = timezone.now()
    decision = policy.decide(verdict=verdict, attempt_number=attempt.number,
                             token_age_seconds=(now - claim.received_at).total_seconds(),
                             jitter=random.random())
    attempt.status_code = outcome.status_code
    attempt.response_body = outcome.body
    attempt.reading = verdict.reading
    attempt.error_message = "" if verdict.reading in (Reading.ATTRIBUTED,
                                                      Reading.NOT_ATTRIBUTED) else verdict.message
    attempt.duration_ms = outcome.duration_ms
    attempt.finished_at = now
    final = decision.state != State.PENDING
    next_at = now + timedelta(seconds=decision.retry_in) if not final else None
    reattributed = False
    if decision.state == State.ATTRIBUTED:
        # Its own transaction, before the claim is closed: if it fails, the claim stays
        # `sending`, the sweep takes it back when the lease ends, and Apple is asked again
        # (the same record; re-attributing twice is a no-op).
        record = verdict.attribution
        reattributed = tracking_services.install_reattribute(
            install_id=claim.install_id, campaign_id=record.campaign_id,
            adset=record.ad_group_id, ad=record.ad, touch_time=record.click_date, now=now,
            evidence=_evidence(verdict))
    with transaction.atomic():
        Attempt.objects.filter(id=attempt.id).update(
            status_code=attempt.status_code, response_body=attempt.response_body,
            reading=attempt.reading, error_message=attempt.error_message,
            duration_ms=attempt.duration_ms, finished_at=attempt.finished_at)
        fields = {"state": decision.state, "next_attempt_at": next_at,
                  "lease_expires_at": None, "updated_at": now,
                  "last_error": attempt.error_message}
        if verdict.answer is not None:
            fields["answer"] = verdict.answer
        if final:
            # The token is a credential for a day: nothing needs it any more.
            fields.update(completed_at=now, token="", reattributed=reattributed)
        # Only while this worker still holds the claim (the sweep may have taken it back).
        moved = Claim.objects.filter(id=claim.id, state=State.SENDING,
                                     attempts_made=attempt.number).update(**fields)
        if moved and not final:
            delay = decision.retry_in
            transaction.on_commit(lambda: enqueue.claim_retry_enqueue(str(claim.id), delay))
    if not final:
        logger.info("Apple Ads claim %s: %s; retry in %.0f s", claim.id, verdict.message,
                    decision.retry_in)
    elif decision.state in (State.FAILED, State.INVALID):
        logger.warning("Apple Ads claim %s given up after %d attempts: %s", claim.id,
                       attempt.number, verdict.message)
    return attempt


def _evidence(verdict: policy.Verdict) -> dict:
    """What the trail keeps of Apple's record: the answer as Apple sent it, and the ids as we
    read them."""
    record = asdict(verdict.attribution)
    record["click_date"] = record["click_date"].isoformat() if record["click_date"] else None
    return {"answer": verdict.answer, "read_as": record}


def claims_sweep(*, now: datetime, grace_seconds: int) -> list[str]:
    """Take back claims whose worker died mid-exchange (lease expired) and re-send pending
    ones whose message was lost (due for longer than the grace). Returns the ids sent."""
    with transaction.atomic():
        stuck = list(Claim.objects.select_for_update(skip_locked=True).filter(
            state=State.SENDING, lease_expires_at__lte=now,
        ).values_list("id", flat=True)[:SWEEP_BATCH])
        Attempt.objects.filter(claim_id__in=stuck, finished_at__isnull=True).update(
            finished_at=now, error_message="Interrupted: the worker stopped before the answer "
                                           "was recorded.")
        Claim.objects.filter(id__in=stuck, state=State.SENDING).update(
            state=State.PENDING, next_attempt_at=now, lease_expires_at=None, updated_at=now)
    cutoff = now - timedelta(seconds=grace_seconds)
    with transaction.atomic():
        # updated_at marks a re-send, as in delivery's sweep: one message per grace period.
        due = list(Claim.objects.select_for_update(skip_locked=True).filter(
            state=State.PENDING, next_attempt_at__lte=cutoff, updated_at__lte=cutoff,
        ).order_by("next_attempt_at").values_list("id", flat=True)[:SWEEP_BATCH])
        Claim.objects.filter(id__in=due, state=State.PENDING).update(updated_at=now)
    claim_ids = list(dict.fromkeys(str(pk) for pk in [*stuck, *due]))
    enqueue.claims_enqueue(claim_ids)
    if claim_ids:
        logger.info("Apple Ads sweep re-sent %d claims (%d taken back from lost workers)",
                    len(claim_ids), len(stuck))
    return claim_ids


def sweep_grace_seconds() -> int:
    """Without a broker nothing else sends retries, so then there is no grace at all."""
    return 0 if enqueue.runs_in_process() else settings.APPLE_ADS_SWEEP_GRACE_SECONDS
