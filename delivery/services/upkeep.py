"""Keeping deliveries moving and the log bounded (docs/delivery.md, "Never lost", "Running
it"): the beat sweep, which takes back deliveries whose worker died mid-send and re-enqueues
pending ones whose message was lost; the admin's redeliver, which gives failed deliveries one
more attempt; and the hourly prune of finished deliveries past the log retention.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from delivery import enqueue
from delivery.models import Delivery, DeliveryAttempt, State

logger = logging.getLogger(__name__)

# Per sweep (a minute): 5,000 re-enqueued deliveries is 300,000 an hour after an outage.
SWEEP_BATCH = 5000
DISPATCH_CHUNK = 100
PRUNE_BATCH = 5000
PRUNE_MAX_BATCHES = 20
INTERRUPTED = ("Interrupted: the worker stopped before the answer was recorded; "
               "the delivery was handed to another worker.")


def sweep_grace_seconds() -> int:
    """How long past due a pending delivery may wait for its message before it is presumed
    lost. Without a broker nothing else sends retries, so then there is no grace at all."""
    return 0 if enqueue.runs_in_process() else settings.DELIVERY_SWEEP_GRACE_SECONDS


def deliveries_sweep(*, now: datetime, grace_seconds: int) -> list[str]:
    """Take back deliveries whose worker died mid-send (lease expired) and re-enqueue pending
    ones whose message was lost (due for longer than the grace). Returns the ids enqueued."""
    requeued: list[str] = []
    with transaction.atomic():
        stuck = list(Delivery.objects.select_for_update(skip_locked=True).filter(
            state=State.SENDING, lease_expires_at__lte=now,
        ).order_by("lease_expires_at")[:SWEEP_BATCH])
        for delivery in stuck:
            DeliveryAttempt.objects.filter(delivery_id=delivery.id, finished_at__isnull=True
                                           ).update(finished_at=now, succeeded=False,
                                                    error_message=INTERRUPTED)
            exhausted = delivery.attempts_made >= delivery.max_attempts
            Delivery.objects.filter(id=delivery.id, state=State.SENDING).update(
                state=State.FAILED if exhausted else State.PENDING,
                next_attempt_at=None if exhausted else now, lease_expires_at=None,
                completed_at=now if exhausted else None, updated_at=now)
            if not exhausted:
                requeued.append(str(delivery.id))
    cutoff = now - timedelta(seconds=grace_seconds)
    with transaction.atomic():
        # A pending delivery's updated_at is never later than its due time, except after a
        # re-enqueue here: it marks the re-enqueue, so the delivery is sent again only after
        # another grace period (one message per period, not per sweep), while next_attempt_at
        # keeps the real due time and a delivery nobody sends stays overdue for all to see.
        due = [str(pk) for pk in Delivery.objects.select_for_update(skip_locked=True).filter(
            state=State.PENDING, next_attempt_at__lte=cutoff, updated_at__lte=cutoff,
        ).order_by("next_attempt_at").values_list("id", flat=True)[:SWEEP_BATCH]]
        Delivery.objects.filter(id__in=due, state=State.PENDING).update(updated_at=now)
    delivery_ids = list(dict.fromkeys(requeued + due))
    for start in range(0, len(delivery_ids), DISPATCH_CHUNK):
        enqueue.deliveries_enqueue(delivery_ids[start:start + DISPATCH_CHUNK])
    if delivery_ids:
        logger.info("sweep re-enqueued %d deliveries (%d taken back from lost workers)",
                    len(delivery_ids), len(requeued))
    return delivery_ids


def deliveries_redeliver(*, delivery_ids: Sequence[uuid.UUID | str]) -> int:
    """Give failed deliveries one more attempt each, sent by the workers like any other."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(Delivery.objects.filter(id__in=list(delivery_ids), state=State.FAILED)
                   .values_list("id", flat=True))
        Delivery.objects.filter(id__in=ids, state=State.FAILED).update(
            state=State.PENDING, max_attempts=F("attempts_made") + 1, next_attempt_at=now,
            completed_at=None, updated_at=now)
        queued = [str(pk) for pk in ids]
        transaction.on_commit(lambda: enqueue.deliveries_enqueue(queued))
    return len(ids)


def deliveries_prune(*, now: datetime, retention_days: int) -> int:
    """Delete finished deliveries (and their attempts) older than the retention, in batches so
    no single statement holds locks for long."""
    cutoff = now - timedelta(days=retention_days)
    deleted = 0
    for _ in range(PRUNE_MAX_BATCHES):
        ids = list(Delivery.objects.filter(completed_at__lt=cutoff)
                   .values_list("id", flat=True)[:PRUNE_BATCH])
        if ids:
            Delivery.objects.filter(id__in=ids).delete()
        deleted += len(ids)
        if len(ids) < PRUNE_BATCH:
            break
    return deleted
