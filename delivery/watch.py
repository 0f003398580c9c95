"""Telling "nothing sends deliveries" from "all is well" (docs/delivery.md, "Overdue
deliveries"). A delivery whose queue nobody consumes fails silently: no attempt, no error, just
a row that stays pending. So overdue deliveries are counted (selectors.deliveries_overdue) and
reported in three places: /readyz, a WARNING in the logs of beat and of the worker that runs
the sweep, and `manage.py delivery_health`. The last two places also ask the workers which
queues they consume, so a delivery queue nobody consumes shows at once (delivery/readiness.py).

Beat is the one process that runs whichever queues the workers consume, so it does the
checking: each time it sends the outbox's sweep (`outbox.sweep`) it counts overdue deliveries
in a thread of its own (a slow database never holds up its schedule). Nothing here runs on the
SDK request path.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from celery.signals import after_task_publish, beat_init
from django.conf import settings
from django.db import connections
from django.utils import timezone

from delivery import selectors

logger = logging.getLogger(__name__)

SWEEP_TASK = "outbox.sweep"
DELIVERY_QUEUE = "delivery"


def overdue_late_seconds() -> int:
    """Past due by more than the sweep's grace and one interval between sweeps: by then the
    sweep has re-sent a delivery whose message was lost, so a delivery still waiting is not
    waiting for its message but for a worker."""
    return settings.DELIVERY_SWEEP_GRACE_SECONDS + settings.DELIVERY_SWEEP_INTERVAL_SECONDS


def overdue_now() -> selectors.Overdue:
    return selectors.deliveries_overdue(now=timezone.now(), late_seconds=overdue_late_seconds())


def describe(overdue: selectors.Overdue) -> str:
    if not overdue.count:
        return f"none more than {overdue.late_seconds} s past due"
    count = f"at least {overdue.count}" if overdue.capped else str(overdue.count)
    return (f"{count} more than {overdue.late_seconds} s past due, the oldest by "
            f"{overdue.oldest_late_seconds(timezone.now())} s")


def warn_if_overdue() -> selectors.Overdue:
    overdue = overdue_now()
    if overdue.count:
        logger.warning(
            "Overdue deliveries: %s. Is a worker consuming the %r queue? `celery -A "
            "attribution_site worker` consumes every queue; `manage.py delivery_health` shows "
            "what the workers consume.", describe(overdue), DELIVERY_QUEUE)
    return overdue


# --- In beat ----------------------------------------------------------------------------------

_checking = threading.Lock()


@beat_init.connect
def _watch_from_beat(sender=None, **kwargs) -> None:
    after_task_publish.connect(_sweep_sent, sender=SWEEP_TASK, weak=False)


def _sweep_sent(sender=None, **kwargs) -> None:
    if not _checking.acquire(blocking=False):  # the previous check has not finished
        return
    threading.Thread(target=_check, name="delivery-overdue-check", daemon=True).start()


def _check() -> None:
    try:
        warn_if_overdue()
    except Exception:  # noqa: BLE001 - a database outage must not stop beat
        logger.warning("could not count overdue deliveries", exc_info=True)
    finally:
        connections.close_all()  # this thread's own; the next check opens a fresh one
        _checking.release()


# --- Broker probes (manage.py delivery_health) ------------------------------------------------

@dataclass(frozen=True)
class QueueState:
    name: str
    messages: int
    workers: tuple[str, ...]  # the workers that answered and consume it


def queue_consumers(*, timeout: float) -> dict[str, tuple[str, ...]]:
    """The workers consuming each queue, by queue name, as the workers answer a broadcast.
    Workers that do not answer within `timeout` seconds count as absent."""
    from attribution_site.celery import app

    answers = app.control.inspect(timeout=timeout).active_queues() or {}
    consumers: dict[str, list[str]] = {}
    for worker, queues in sorted(answers.items()):
        for queue in queues or ():
            consumers.setdefault(queue["name"], []).append(worker)
    return {name: tuple(workers) for name, workers in consumers.items()}


def queues_state(*, timeout: float) -> list[QueueState]:
    """Messages waiting in each declared queue and which workers consume it. Workers that do
    not answer within `timeout` seconds count as absent."""
    from attribution_site.celery import app

    consumers = queue_consumers(timeout=timeout)
    states = []
    with app.connection_for_read() as connection:
        channel = connection.default_channel
        for queue in app.conf.task_queues:
            # Declared as every worker declares it: a passive declare fails on an empty Redis
            # queue, which has no key.
            declared = channel.queue_declare(queue.name)
            states.append(QueueState(queue.name, declared.message_count,
                                     consumers.get(queue.name, ())))
    return states
