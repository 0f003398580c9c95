"""In-app events (spec: Attribution endpoints, `POST /api/v1/events`): storing a validated batch
with one bulk statement, linked to the device's install, with the consent changes it carries and
one EventTracked per stored event in the same transaction. A client event id is stored once,
whatever day partition an earlier try landed in (docs/decisions.md, "Event ids across day
partitions"); the statements are tracking/sql.py's.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from attribution_site import domain_events
from consent import services as consent_services
from tracking import attribution, sql
from tracking.event_batch import CleanEvent


@dataclass(frozen=True)
class EventsOutcome:
    accepted: int
    duplicates: int


def events_record(*, app_id: uuid.UUID, device_id: str | None, events: list[CleanEvent],
                  received_at: datetime) -> EventsOutcome:
    """Store a validated batch with one bulk statement; repeated client event ids are skipped.

    The batch first claims its client event ids (EventKey) in the transaction that stores the
    events: only the events whose id it claimed are stored, whatever day partition an earlier
    try landed in, and a concurrent retry waits on the uncommitted keys and then finds them."""
    if not events:
        return EventsOutcome(accepted=0, duplicates=0)
    device_id = attribution.usable_device_id(device_id)
    with transaction.atomic():
        start = sql.event_batch_start(
            app_id=app_id, device_id=device_id,
            event_ids={e.event_id for e in events if e.event_id is not None}, size=len(events))
        install_id, media_source, campaign_id, is_blocked = start.link or (None, None, None,
                                                                           False)
        fresh = _with_claimed_ids(events, start.claimed)
        ids = sql.events_insert(app_id=app_id, install_id=install_id, device_id=device_id,
                                events=fresh, received_at=received_at, ids=start.ids,
                                is_blocked=is_blocked)
        changes = [(e.occurred_at, e.consent) for e in fresh if e.consent is not None]
        if changes and (install_id is not None or device_id is not None):
            consent_services.consents_record(app_id=app_id, install_id=install_id,
                                             device_id=device_id, changes=changes)
        domain_events.publish([
            domain_events.EventTracked(
                app_id=app_id, event_id=event_id, device_id=device_id,
                install_id=install_id, event_name=e.event_name, properties=e.properties,
                occurred_at=e.occurred_at, revenue_amount=e.revenue_amount,
                revenue_currency=e.revenue_currency, media_source=media_source,
                campaign_id=campaign_id, consent=e.consent, is_blocked=is_blocked)
            for event_id, e in zip(ids, fresh, strict=True)])
    return EventsOutcome(accepted=len(events), duplicates=len(events) - len(fresh))


def _with_claimed_ids(events: list[CleanEvent], claimed: set[str]) -> list[CleanEvent]:
    """The events to store: those without a client id, and the first event of each id this
    batch claimed (a batch repeating an id stores it once)."""
    unused = set(claimed)
    fresh = []
    for event in events:
        if event.event_id is not None:
            if event.event_id not in unused:
                continue
            unused.remove(event.event_id)
        fresh.append(event)
    return fresh
