"""Deliveries created with the facts (spec: Events, "Delivery"): the in-transaction handlers of
tracking's InstallAttributed, InstallReattributed, InstallReengaged and EventTracked, which add
one delivery row per matching postback and webhook to the batch that records the facts (so a
delivery commits or rolls back with its install or event), then hand the whole publication to
the workers in one message after commit. What is sent is frozen here; where it goes is read at
send time.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.utils import timezone

from attribution_site.write_batch import WriteBatch
from delivery import enqueue, payloads, policy, selectors
from delivery.models import Delivery, Kind


def deliveries_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: webhooks for every install (organic too), postbacks for attributed
    installs to the configuration of the install's media source."""
    _deliveries_create(events, batch, payloads.install_fact)


def deliveries_for_reattributions(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallReattributed: as an install, to the configurations subscribed to installs."""
    _deliveries_create(events, batch, payloads.reattribution_fact)


def deliveries_for_reengagements(events: Sequence[Any], batch: WriteBatch) -> None:
    _deliveries_create(events, batch, payloads.reengagement_fact)


def deliveries_for_events(events: Sequence[Any], batch: WriteBatch) -> None:
    _deliveries_create(events, batch, payloads.event_fact)


def _deliveries_create(events: Sequence[Any], batch: WriteBatch,
                       to_fact: Callable[[Any], payloads.Fact]) -> None:
    """Adds the delivery rows to the batch that records the facts, and one Celery message for
    the whole publication after commit. The targets come from a per-process cache, so an app
    with nothing configured costs nothing here."""
    targets = selectors.delivery_targets(app_ids={event.app_id for event in events})
    if not targets:
        return
    by_app: dict[uuid.UUID, list[selectors.Target]] = defaultdict(list)
    for target in targets:
        by_app[target.app_id].append(target)
    now = timezone.now()
    attempts = policy.max_attempts(settings.DELIVERY_RETRY_DELAYS)
    timestamp_ms = payloads.unix_ms(now)
    rows: list[Delivery] = []
    for event in events:
        app_targets = by_app.get(event.app_id)
        if not app_targets:
            continue
        fact = to_fact(event)
        postback_body = None
        for target in app_targets:
            if payloads.SUBSCRIBED_AS.get(fact.event_type, fact.event_type) not in target.events:
                continue
            delivery_id = uuid.uuid4()
            if target.kind == Kind.POSTBACK:
                # Postbacks credit a network: never for organic facts, only to the source.
                if fact.is_organic or fact.media_source != target.media_source:
                    continue
                postback_body = postback_body or payloads.postback_body(fact.values)
                body = postback_body
            else:
                body = payloads.webhook_body(message_id=str(delivery_id),
                                             event_type=fact.event_type,
                                             timestamp_ms=timestamp_ms, data=fact.data)
            rows.append(Delivery(
                id=delivery_id, app_id=event.app_id, kind=target.kind,
                postback_id=target.config_id if target.kind == Kind.POSTBACK else None,
                webhook_id=target.config_id if target.kind == Kind.WEBHOOK else None,
                event_type=fact.event_type, source_id=fact.source_id, body=body,
                max_attempts=attempts, next_attempt_at=now, created_at=now, updated_at=now))
    if not rows:
        return
    # A fact published twice must not be delivered twice: the partial unique constraints
    # drop the duplicates, and their ids simply find nothing to claim.
    batch.insert(rows, ignore_conflicts=True)
    delivery_ids = [str(row.id) for row in rows]
    batch.after_commit(lambda: enqueue.deliveries_enqueue(delivery_ids))
