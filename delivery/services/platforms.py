"""Conversions sent back to the ad networks as deliveries (docs/networks.md, "Sending
conversions"): two more kinds of delivery (`google_ads`, `meta`) besides postbacks and webhooks,
so each try is an attempt row the delivery log lists (`GET /api/v1/postbacks/logs?platform=`),
retried and swept like any delivery, and nothing is lost while a platform is down.

Delivery knows no network: networks/forwarding.py says which facts each app's platforms hear of
(`conversions_for`) and builds the request of one when it is sent (`request_for`). What is
delivery's own: the rows, written with the facts (InstallAttributed, EventTracked) with the body
frozen, and the user's consent at the fact, which decides: anything but `full` sharing writes
the row as `skipped` with the reason, and nothing is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.utils import timezone

from attribution_site.write_batch import WriteBatch
from consent import sharing
from delivery import enqueue, payloads, policy
from delivery.models import Delivery, State
from delivery.services.fanout import FILTERED_NOTE, _consents
from networks import forwarding

NO_IDENTIFIERS_NOTE = ("skipped: GDPR applies and ad_user_data is denied (a conversion names "
                       "the device)")


def platform_deliveries_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: the new installs the platforms hear of."""
    _create(events, batch, new_installs=True)


def platform_deliveries_for_events(events: Sequence[Any], batch: WriteBatch) -> None:
    """EventTracked: the events the platforms hear of."""
    _create(events, batch, new_installs=False)


def _create(events: Sequence[Any], batch: WriteBatch, *, new_installs: bool) -> None:
    wanted = forwarding.conversions_for(events, new_installs=new_installs)
    if not wanted:
        return
    now = timezone.now()
    unique_events = list({id(event): event for event, _ in wanted}.values())
    consents = dict(zip((id(e) for e in unique_events),
                        _consents(unique_events, new_installs=new_installs), strict=True))
    attempts = policy.max_attempts(settings.DELIVERY_RETRY_DELAYS)
    rows = []
    for event, conversion in wanted:
        consent = consents[id(event)]
        note = {sharing.NONE: FILTERED_NOTE,
                sharing.NO_IDENTIFIERS: NO_IDENTIFIERS_NOTE}.get(
                    sharing.partner_sharing(consent), "")
        skipped = bool(note)
        rows.append(Delivery(
            id=uuid.uuid4(), app_id=event.app_id, kind=conversion.platform,
            event_type=payloads.INSTALL if new_installs else payloads.EVENT,
            source_id=conversion.install_id if new_installs else str(event.event_id),
            install_id=event.install_id,
            body="{}" if skipped else conversion.with_consent(consent).body(),
            state=State.SKIPPED if skipped else State.PENDING, consent_note=note,
            max_attempts=attempts, next_attempt_at=None if skipped else now,
            completed_at=now if skipped else None, created_at=now, updated_at=now))
    batch.insert(rows, ignore_conflicts=True)  # a fact published twice is sent once
    delivery_ids = [str(row.id) for row in rows if row.state == State.PENDING]
    if delivery_ids:
        batch.after_commit(lambda: enqueue.deliveries_enqueue(delivery_ids))


def platform_request(delivery: Delivery) -> forwarding.Built | None:
    """The request of a platform delivery, the URL the log shows, and a problem that keeps it
    from being sent (the attempt then fails at once, for good); None when the app no longer
    has the platform's integration (the delivery is cancelled, like one whose postback was
    deleted)."""
    return forwarding.request_for(app_id=delivery.app_id, body=delivery.body)
