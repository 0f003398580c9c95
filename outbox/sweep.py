"""The sweep beat sends every minute, over every registered kind (docs/outbox.md, "Sweep"): rows
whose worker died mid-try (lease expired) are taken back, their open attempt closed as
interrupted, and either given up (the kind's `exhausted` rule) or tried again; pending rows due
for longer than the kind's grace are presumed to have lost their message and are sent again.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction

from outbox import enqueue
from outbox.kind import PENDING, SENDING, Kind, kinds

logger = logging.getLogger(__name__)

INTERRUPTED = ("Interrupted: the worker stopped before the answer was recorded; another "
               "worker takes it over.")
# Rows per message when a kind has a batch task.
DISPATCH_CHUNK = 100


def grace_seconds(kind: Kind) -> int:
    """How long past due a pending row may wait for its message before it is presumed lost.
    Without a broker nothing else sends retries, so then there is no grace at all."""
    return 0 if enqueue.runs_in_process() else kind.grace_seconds()


def kinds_sweep(*, now: datetime) -> dict[str, list[str]]:
    """Sweep every registered kind, each in its own transactions: one kind's trouble (its table
    locked, a bug in its upkeep) is logged and does not keep the others from being swept.
    Returns the ids sent, by kind name."""
    sent = {}
    for kind in kinds():
        try:
            sent[kind.name] = kind_sweep(kind, now=now)
        except Exception:  # noqa: BLE001 - the next kind still gets its sweep
            logger.exception("the %s sweep failed; the next sweep tries again", kind.name)
    return sent


def kind_sweep(kind: Kind, *, now: datetime) -> list[str]:
    """One kind's sweep as beat runs it: with its grace, then its upkeep."""
    sent = work_sweep(kind, now=now, grace_seconds=grace_seconds(kind))
    if kind.upkeep is not None:
        kind.upkeep(now)
    return sent


def work_sweep(kind: Kind, *, now: datetime, grace_seconds: int) -> list[str]:
    """Take back and re-send. Returns the ids sent (taken back first, then the lost)."""
    taken_back = _take_back(kind, now)
    lost = _lost_messages(kind, now, grace_seconds)
    work_ids = list(dict.fromkeys(taken_back + lost))
    for start in range(0, len(work_ids), DISPATCH_CHUNK):
        enqueue.work_enqueue(kind, work_ids[start:start + DISPATCH_CHUNK])
    if work_ids:
        logger.info("%s sweep re-sent %d (%d taken back from lost workers)", kind.name,
                    len(work_ids), len(taken_back))
    return work_ids


def _take_back(kind: Kind, now: datetime) -> list[str]:
    work = kind.work_model.objects
    with transaction.atomic():
        stuck = list(work.select_for_update(skip_locked=True).filter(
            state=SENDING, lease_expires_at__lte=now,
        ).order_by("lease_expires_at")[:kind.sweep_batch])
        kind.attempt_model.objects.filter(
            **{f"{kind.attempt_of}_id__in": [row.pk for row in stuck]}, finished_at__isnull=True,
        ).update(finished_at=now, error_message=INTERRUPTED, **kind.interrupted_fields)
        again, given_up = [], []
        for row in stuck:
            final = kind.exhausted(row, now)
            if final is None:
                again.append(row.pk)
                continue
            work.filter(pk=row.pk, state=SENDING).update(
                next_attempt_at=None, lease_expires_at=None, completed_at=now, updated_at=now,
                **final)
            given_up.append(row)
        work.filter(pk__in=again, state=SENDING).update(
            state=PENDING, next_attempt_at=now, lease_expires_at=None, updated_at=now)
        if given_up and kind.given_up is not None:
            kind.given_up(given_up, now)
    return [str(work_id) for work_id in again]


def _lost_messages(kind: Kind, now: datetime, grace_seconds: int) -> list[str]:
    cutoff = now - timedelta(seconds=grace_seconds)
    work = kind.work_model.objects
    with transaction.atomic():
        # A pending row's updated_at is never later than its due time, except after a re-send
        # here: it marks the re-send, so the row is sent again only after another grace period
        # (one message per period, not per sweep), while next_attempt_at keeps the real due
        # time and a row nobody sends stays overdue for all to see.
        due = [str(pk) for pk in work.select_for_update(skip_locked=True).filter(
            state=PENDING, next_attempt_at__lte=cutoff, updated_at__lte=cutoff,
        ).order_by("next_attempt_at").values_list("pk", flat=True)[:kind.sweep_batch]]
        work.filter(pk__in=due, state=PENDING).update(updated_at=now)
    return due
