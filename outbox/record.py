"""Recording a try (docs/outbox.md, "Record"): the attempt row always gets its outcome; the work
row moves only while this worker still holds the claim. If the sweep took the row back (the
lease ran out) its new owner decides, and this attempt is just logged. A retry is a message
sent after commit, under the same row id, so the receiver sees one id on every try.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from outbox import enqueue
from outbox.kind import PENDING, SENDING, Kind


@dataclass(frozen=True)
class Result:
    """What the kind's policy made of one try."""

    state: str  # the final state; ignored for a retry, which is pending again
    retry_in: float | None  # seconds until the retry, or None when the row is final
    attempt: Mapping[str, Any]  # the attempt's outcome fields
    work: Mapping[str, Any] = field(default_factory=dict)  # the kind's own row fields


def attempt_record(kind: Kind, row: Any, attempt: Any, result: Result, *,
                   now: datetime) -> bool:
    """Store the outcome; move the row on when this worker still holds it. Returns whether it
    did. `row` and `attempt` are updated in memory to match."""
    retry = result.retry_in is not None
    state = PENDING if retry else result.state
    next_at = now + timedelta(seconds=result.retry_in) if retry else None
    with transaction.atomic():
        # An UPDATE, not save(): if the row was deleted meanwhile there is nothing to write.
        kind.attempt_model.objects.filter(pk=attempt.pk).update(finished_at=now,
                                                                **result.attempt)
        moved = kind.work_model.objects.filter(
            pk=row.pk, state=SENDING, attempts_made=attempt.number,
        ).update(state=state, next_attempt_at=next_at, lease_expires_at=None,
                 completed_at=None if retry else now, updated_at=now, **result.work)
        if moved and retry:
            work_id, delay = str(row.pk), result.retry_in
            transaction.on_commit(lambda: enqueue.retry_enqueue(kind, work_id, delay))
    for name, value in {**result.attempt, "finished_at": now}.items():
        setattr(attempt, name, value)
    if moved:
        row.state, row.next_attempt_at = state, next_at
    return bool(moved)
