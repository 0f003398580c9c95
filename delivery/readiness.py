"""Delivery's readiness checks (registered in DeliveryConfig.ready(); attribution_site/
readiness.py; docs/delivery.md, "Overdue deliveries"). Both are warnings, never failures:

- `deliveries`: deliveries overdue, with their count. It needs time to tell: a delivery is
  overdue only after the sweep's grace and one sweep interval (three minutes by default).
- `delivery_workers`: whether any worker consumes the `delivery` queue, which tells at once.
  The workers answer a broadcast (what `manage.py delivery_health` asks too); the answer is
  kept a few seconds, so probes every second or two cost one broadcast between them.
"""

from __future__ import annotations

import threading
import time

from django.utils import timezone

from attribution_site.readiness import Basics
from delivery import watch
from outbox.enqueue import runs_in_process

# How long workers get to answer; a busy prefork worker's main process answers in milliseconds.
ANSWER_TIMEOUT = 0.5
ANSWER_KEPT_SECONDS = 5.0

_answer_lock = threading.Lock()
_answer: tuple[float, tuple[str, ...]] | None = None


def deliveries(basics: Basics) -> tuple[str, dict | None]:
    """Deliveries overdue past the sweep's grace, and how many.

    Answers ("ok" | "warning" | "not checked", the overdue figures)."""
    if not basics["database"]:
        return "not checked", None
    overdue = watch.overdue_now()
    return ("warning" if overdue.count else "ok"), {
        "overdue": overdue.count, "overdue_capped": overdue.capped,
        "oldest_overdue_seconds": overdue.oldest_late_seconds(timezone.now()),
        "late_after_seconds": overdue.late_seconds}


def delivery_workers(basics: Basics) -> tuple[str, dict | None]:
    """Whether any worker consumes the `delivery` queue.

    Answers ("ok" | "warning" | "not configured" | "not checked", the queue and its
    consumers)."""
    if runs_in_process():  # no broker: deliveries are sent by the process that makes them
        return "not configured", None
    if basics["redis"] is False:
        return "not checked", None
    workers = _delivery_consumers()
    return ("ok" if workers else "warning"), {"queue": watch.DELIVERY_QUEUE,
                                             "workers": list(workers)}


def _delivery_consumers() -> tuple[str, ...]:
    global _answer
    with _answer_lock:  # one broadcast at a time, whatever the number of probing threads
        now = time.monotonic()
        if _answer is None or now - _answer[0] > ANSWER_KEPT_SECONDS:
            consumers = watch.queue_consumers(timeout=ANSWER_TIMEOUT)
            _answer = (time.monotonic(), consumers.get(watch.DELIVERY_QUEUE, ()))
        return _answer[1]
