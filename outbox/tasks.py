"""The options every outbox task shares, and the one sweep beat sends (docs/outbox.md, "Sweep").

`TASK_OPTIONS`: late acknowledgement, so a message whose worker dies mid-task is delivered again
(the claim makes the second delivery harmless), and no result stored. No `autoretry_for`: each
kind's pure policy classifies every outcome and the outbox schedules the retry itself.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from outbox import sweep

TASK_OPTIONS = {"acks_late": True, "ignore_result": True}


@shared_task(name="outbox.sweep", **TASK_OPTIONS)
def outbox_sweep() -> None:
    """Every outbox kind in turn: take back expired leases, re-send rows that lost their message."""
    sweep.kinds_sweep(now=timezone.now())
