"""Keeping deliveries moving and the log bounded (docs/delivery.md, "Never lost", "Running
it"): the admin's redeliver, which gives failed deliveries one more attempt, and the hourly prune
of finished deliveries past the log retention. The sweep is the outbox's (docs/outbox.md,
"Sweep"), over every kind.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from delivery import enqueue
from delivery.models import Delivery, State

PRUNE_BATCH = 5000
PRUNE_MAX_BATCHES = 20


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
