"""Deliveries as a kind of outbox work (docs/outbox.md; docs/delivery.md, "Never lost"): what
the outbox needs to claim, record, retry and sweep them, and the one dispatch message of a
publication, a sweep or a redeliver. Messages go by task name (`delivery.dispatch`,
`delivery.send`), so nothing here imports `delivery.tasks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from delivery import policy
from delivery.models import Delivery, DeliveryAttempt, State
from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register


def _exhausted(delivery: Delivery, now: datetime) -> dict | None:
    if policy.exhausted(attempts_made=delivery.attempts_made,
                        max_attempts=delivery.max_attempts):
        return {"state": State.FAILED}
    return None


def _warn_if_overdue(now: datetime) -> None:
    # In the log of whichever worker runs the sweep (beat warns too, delivery/watch.py).
    from delivery import watch  # celery signals and selectors: not needed to enqueue

    watch.warn_if_overdue()


DELIVERIES = kind_register(Kind(
    name="delivery", work_model=Delivery, attempt_model=DeliveryAttempt, attempt_of="delivery",
    send_task="delivery.send", batch_task="delivery.dispatch",
    timeout_setting="DELIVERY_TIMEOUT_SECONDS", grace_setting="DELIVERY_SWEEP_GRACE_SECONDS",
    exhausted=_exhausted, interrupted_fields={"succeeded": False},
    # Per sweep (a minute): 5,000 re-sent deliveries is 300,000 an hour after an outage.
    sweep_batch=5000, upkeep=_warn_if_overdue,
))


def deliveries_enqueue(delivery_ids: Sequence[str]) -> None:
    """Hand deliveries to the workers in one message. Never raises: the rows are committed,
    and a delivery whose message never reaches Redis is found by the sweep."""
    work_enqueue(DELIVERIES, delivery_ids)
