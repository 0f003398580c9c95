"""Apple Ads claims (docs/apple.md, "Apple Ads: a correction after the waterfall"): the claim
created with an iOS install that brought an AdServices token, and the claim -> exchange ->
record cycle that workers run.

The claim is added to the install's own write (a subscriber of InstallAttributed), so a token is
never lost between the install and its claim, and a repeat install (which publishes nothing)
never makes a second one. A worker takes a due claim with a conditional UPDATE (two messages
never exchange a token twice at once), calls Apple outside any transaction, logs the attempt
(the outbox's cycle, docs/outbox.md), and lets apple_ads.policy decide: re-attribute the install
through tracking's `install_reattribute`, retry later, or stop. The beat sweep re-sends what was
lost (the outbox's one sweep, over every kind).
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.utils import timezone

from apple_ads import client, enqueue, policy
from apple_ads.models import Attempt, Claim
from apple_ads.policy import Reading, State
from attribution_site.write_batch import WriteBatch
from outbox.claim import work_claim, work_due
from outbox.record import Result, attempt_record
from tracking import services as tracking_services

logger = logging.getLogger(__name__)

# AdServices runs on iOS (and iPadOS, macOS): only the SDK's `ios` platform brings a token we
# exchange. Another platform's token is ignored, since Apple attributes only its own devices.
PLATFORMS = frozenset({"ios"})


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
    """Exchange one claim's token now, if it is due and nobody else holds it (the outbox's
    claim -> try -> record cycle, docs/outbox.md). Returns the attempt, or None when there was
    nothing to do. Never call inside a transaction: the call to Apple takes up to
    APPLE_ADS_TIMEOUT_SECONDS."""
    now = timezone.now()
    claim = work_due(enqueue.CLAIMS, claim_id, now=now)
    if claim is None:
        return None
    attempt = work_claim(enqueue.CLAIMS, claim, now=now)
    if attempt is None:
        return None
    outcome = client.exchange(url=settings.APPLE_ADS_API_URL, token=claim.token,
                              timeout=settings.APPLE_ADS_TIMEOUT_SECONDS)
    _record(claim, attempt, outcome)
    return attempt


def _record(claim: Claim, attempt: Attempt, outcome: policy.Outcome) -> None:
    verdict = policy.judge(outcome)
    now = timezone.now()
    decision = policy.decide(verdict=verdict, attempt_number=attempt.number,
                             token_age_seconds=(now - claim.received_at).total_seconds(),
                             jitter=random.random())
    error = "" if verdict.reading in (Reading.ATTRIBUTED, Reading.NOT_ATTRIBUTED) \
        else verdict.message
    final = decision.state != State.PENDING
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
    fields = {"last_error": error}
    if verdict.answer is not None:
        fields["answer"] = verdict.answer
    if final:
        # The token is a credential for a day: nothing needs it any more.
        fields.update(token="", reattributed=reattributed)
    attempt_record(enqueue.CLAIMS, claim, attempt, Result(
        state=decision.state, retry_in=None if final else decision.retry_in,
        attempt={"status_code": outcome.status_code, "response_body": outcome.body,
                 "reading": verdict.reading, "error_message": error,
                 "duration_ms": outcome.duration_ms},
        work=fields), now=now)
    if not final:
        logger.info("Apple Ads claim %s: %s; retry in %.0f s", claim.id, verdict.message,
                    decision.retry_in)
    elif decision.state in (State.FAILED, State.INVALID):
        logger.warning("Apple Ads claim %s given up after %d attempts: %s", claim.id,
                       attempt.number, verdict.message)


def _evidence(verdict: policy.Verdict) -> dict:
    """What the trail keeps of Apple's record: the answer as Apple sent it, and the ids as we
    read them."""
    record = asdict(verdict.attribution)
    record["click_date"] = record["click_date"].isoformat() if record["click_date"] else None
    return {"answer": verdict.answer, "read_as": record}

