"""Google Ads claims (docs/networks.md, "Google Ads"): the claim created with an install that
Google could have brought, and the claim -> call -> record cycle that workers run.

The claim is added to the install's own write (a subscriber of InstallAttributed), so it is
never lost between the install and its claim, and a repeat install (which publishes nothing)
never makes a second one. A worker takes a due claim with a conditional UPDATE, checks the
user's consent at the install, sends Google the first_open outside any transaction, logs the
attempt (the outbox's cycle, docs/outbox.md), and lets networks/google/policy.py decide. When
Google claims the install, tracking's `install_reattribute_google` decides whether it moves, and
the same claim then carries the cross-network answer (whether we credited Google), sent once.
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

from attribution_site.write_batch import WriteBatch
from consent import selectors as consent_selectors
from consent import sharing
from networks import selectors
from networks.google import client, enqueue, policy, protocol
from networks.google.policy import CrossNetwork, Reading, State, Step
from networks.google.referrer import google_click
from networks.models import GoogleClaim, GoogleClaimAttempt
from outbox.claim import work_claim, work_due
from outbox.record import Result, attempt_record
from tracking import services as tracking_services

logger = logging.getLogger(__name__)

PLATFORMS = frozenset({"android", "ios"})
NO_INTEGRATION = "The app has no Google Ads integration any more; not sent."
NO_DEV_TOKEN = "GOOGLE_ADS_DEVELOPER_TOKEN is not set; not sent."
CONSENT_SKIPPED = {
    sharing.NONE: 'Not sent: the user\'s sharing_filter is "all".',
    sharing.NO_IDENTIFIERS: ("Not sent: GDPR applies and ad_user_data is denied (Google's claim "
                             "needs the device's identifiers)."),
}


def claims_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: a claim for each new install of an app with a Google Ads integration
    that has an advertising id or Google's click in its Play referrer, written in the install's
    own statement, and its first call sent after commit. The integration is read from the
    process's cache: an app without one costs nothing here."""
    now = timezone.now()
    rows = []
    for event in events:
        if event.platform not in PLATFORMS or selectors.google_ads_of(event.app_id) is None:
            continue
        click = google_click(event.install_referrer) if event.platform == "android" else None
        if not event.device_id and click is None:
            continue
        rows.append(GoogleClaim(
            id=uuid.uuid4(), app_id=event.app_id, install_id=event.install_id,
            platform=event.platform, rdid=event.device_id or "",
            gclid=(click and click.gclid) or "", gbraid=(click and click.gbraid) or "",
            os_version=event.os_version[:64], sdk_version=event.sdk_version[:64],
            ip=event.ip or None, user_agent=event.user_agent[:1024],
            installed_at=event.installed_at, state=State.PENDING, next_attempt_at=now,
            received_at=now, updated_at=now))
    if not rows:
        return
    batch.insert(rows, ignore_conflicts=True)  # a fact published twice claims once
    claim_ids = [str(row.id) for row in rows]
    batch.after_commit(lambda: enqueue.claims_enqueue(claim_ids))


def claim_send(*, claim_id: uuid.UUID | str) -> GoogleClaimAttempt | None:
    """Make the claim's next call now (the first_open, or the cross-network answer), if it is
    due and nobody else holds it. Returns the attempt, or None when there was nothing to do or
    nothing may be sent. Never call inside a transaction: the call to Google takes up to
    GOOGLE_ADS_TIMEOUT_SECONDS."""
    now = timezone.now()
    claim = work_due(enqueue.CLAIMS, claim_id, now=now)
    if claim is None:
        return None
    integration = selectors.google_ads_of(claim.app_id)
    if integration is None:
        _close(claim, State.FAILED, NO_INTEGRATION)
        return None
    if not settings.GOOGLE_ADS_DEVELOPER_TOKEN:
        _close(claim, State.FAILED, NO_DEV_TOKEN)
        return None
    consent = consent_selectors.consent_of(app_id=claim.app_id, install_id=claim.install_id,
                                           device_id=claim.rdid or None, at=claim.installed_at)
    shared = sharing.partner_sharing(consent)
    if shared != sharing.FULL and claim.step == Step.FIRST_OPEN:
        _close(claim, State.SKIPPED, CONSENT_SKIPPED[shared])
        return None
    request = _request(claim, integration.link_id, consent)
    attempt = work_claim(enqueue.CLAIMS, claim, now=now, step=claim.step,
                         url=protocol.masked(request.url, settings.GOOGLE_ADS_DEVELOPER_TOKEN))
    if attempt is None:
        return None
    outcome = client.send(request, timeout=settings.GOOGLE_ADS_TIMEOUT_SECONDS)
    if claim.step == Step.CROSS_NETWORK:
        _record_cross_network(claim, attempt, outcome)
    else:
        _record_first_open(claim, attempt, outcome)
    return attempt


def _request(claim: GoogleClaim, link_id: str, consent) -> protocol.Request:
    device = protocol.Device(
        platform=claim.platform, rdid=claim.rdid or None,
        # The SDK reports no app version; Google asks for the SDK's when there is none.
        app_version=claim.sdk_version, os_version=claim.os_version,
        sdk_version=claim.sdk_version, ip=claim.ip, user_agent=claim.user_agent,
        gclid=claim.gclid or None, gbraid=claim.gbraid or None,
        eea=consent.gdpr_applies if consent else None,
        ad_user_data=consent.ad_user_data if consent else None,
        ad_personalization=consent.ad_personalization if consent else None)
    common = {"origin": settings.GOOGLE_ADS_API_URL,
              "dev_token": settings.GOOGLE_ADS_DEVELOPER_TOKEN, "link_id": link_id,
              "device": device, "at": claim.installed_at}
    if claim.step == Step.CROSS_NETWORK:
        return protocol.cross_network(**common, ad_event_id=claim.ad_event_id,
                                      credited=claim.reattributed)
    return protocol.conversion(**common, event_type=protocol.FIRST_OPEN)


def _close(claim: GoogleClaim, state: State, error: str) -> None:
    """End a claim that is not sent, if it is still pending (no attempt: nothing was called)."""
    now = timezone.now()
    GoogleClaim.objects.filter(id=claim.id, state=State.PENDING).update(
        state=state, last_error=error, next_attempt_at=None, completed_at=now, updated_at=now,
        **_device_cleared())
    logger.info("Google Ads claim %s: %s", claim.id, error)


def _device_cleared() -> dict:
    """A final claim keeps Google's answer, not what identified the device."""
    return {"rdid": "", "gclid": "", "gbraid": "", "ip": None, "user_agent": ""}


def _attempt_fields(outcome: policy.Outcome, verdict: policy.Verdict, error: str) -> dict:
    return {"status_code": outcome.status_code, "response_body": outcome.body,
            "reading": verdict.reading, "error_message": error,
            "duration_ms": outcome.duration_ms}


def _record_first_open(claim: GoogleClaim, attempt: GoogleClaimAttempt,
                       outcome: policy.Outcome) -> None:
    verdict = policy.judge(outcome)
    now = timezone.now()
    decision = policy.decide(verdict=verdict, attempt_number=attempt.number - claim.step_offset,
                             jitter=random.random())
    error = "" if verdict.reading in (Reading.ATTRIBUTED, Reading.NOT_ATTRIBUTED) \
        else verdict.message
    fields: dict = {"last_error": error}
    if verdict.answer is not None:
        fields["answer"] = verdict.answer
    retry_in = decision.retry_in
    if verdict.reading == Reading.ATTRIBUTED:
        # Its own transaction, before the claim moves on: if it fails, the claim stays
        # `sending`, the sweep takes it back when the lease ends, and Google is asked again
        # (re-attributing twice is a no-op).
        event = verdict.ad_event
        credited = tracking_services.install_reattribute_google(
            install_id=claim.install_id, now=now, claim=tracking_services.GoogleClaim(
                campaign_id=event.campaign_id, campaign_name=event.campaign_name,
                ad_group_id=event.ad_group_id, network=event.network_type,
                touch_time=event.touch_time, evidence=_evidence(verdict),
                metadata=_metadata(event)))
        fields.update(ad_event_id=event.ad_event_id, reattributed=credited,
                      step=Step.CROSS_NETWORK, step_offset=attempt.number)
    elif retry_in is None:
        fields.update(_device_cleared())
    attempt_record(enqueue.CLAIMS, claim, attempt, Result(
        state=decision.state, retry_in=retry_in,
        attempt=_attempt_fields(outcome, verdict, error), work=fields), now=now)
    if verdict.reading == Reading.ATTRIBUTED:
        return
    if retry_in is not None:
        logger.info("Google Ads claim %s: %s; retry in %.0f s", claim.id, verdict.message,
                    retry_in)
    elif decision.state in (State.FAILED, State.REJECTED):
        logger.warning("Google Ads claim %s given up after %d attempts: %s", claim.id,
                       attempt.number, verdict.message)


def _record_cross_network(claim: GoogleClaim, attempt: GoogleClaimAttempt,
                          outcome: policy.Outcome) -> None:
    verdict = policy.judge(outcome, step=Step.CROSS_NETWORK)
    now = timezone.now()
    decision, ended = policy.decide_cross_network(
        verdict=verdict, attempt_number=attempt.number - claim.step_offset,
        jitter=random.random())
    error = "" if verdict.reading == Reading.ACKNOWLEDGED else verdict.message
    fields: dict = {"last_error": error}
    if ended is not None:
        fields.update(cross_network=ended, **_device_cleared())
    attempt_record(enqueue.CLAIMS, claim, attempt, Result(
        state=decision.state, retry_in=decision.retry_in,
        attempt=_attempt_fields(outcome, verdict, error), work=fields), now=now)
    if ended == CrossNetwork.FAILED:
        logger.warning("Google Ads claim %s: the cross-network answer was not delivered: %s",
                       claim.id, verdict.message)


def _evidence(verdict: policy.Verdict) -> dict:
    """What the trail keeps of Google's answer: as Google sent it, and as we read it."""
    record = asdict(verdict.ad_event)
    record["touch_time"] = record["touch_time"].isoformat() if record["touch_time"] else None
    return {"answer": verdict.answer, "read_as": record}


def _metadata(event: policy.AdEvent) -> dict:
    """The install's platform metadata (the shape Meta's referrer gives): Google's ids and
    names, shown by the install API, exports and the console."""
    fields = {name: value for name, value in asdict(event).items()
              if name != "touch_time" and value is not None}
    view = "view" in (event.interaction_type or "").lower()
    return {"platform": policy.MEDIA_SOURCE, "origin": "google_ads_api",
            "touch": "view" if view else "click", "campaign": fields}

