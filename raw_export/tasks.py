"""Celery tasks of raw-data export (docs/export.md, "Runs"). Thin: each takes an id or nothing
and calls one service. They go to the `raw_export` queue, declared in CELERY_TASK_QUEUES so a
plain `celery -A attribution_site worker` consumes it, and kept apart so a long run never holds
up postbacks or privacy requests. A run may take longer than the default task limit: its own
limit follows RAW_EXPORT_TIMEOUT_SECONDS, the budget its outbox lease is made from. The sweep is
the outbox's one (outbox/tasks.py).
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from outbox.tasks import TASK_OPTIONS
from raw_export import services


@shared_task(name="raw_export.run", soft_time_limit=settings.RAW_EXPORT_TIMEOUT_SECONDS,
             time_limit=settings.RAW_EXPORT_TIMEOUT_SECONDS + 30, **TASK_OPTIONS)
def raw_export_run(run_id: str) -> None:
    services.run_attempt(run_id=run_id)


@shared_task(name="raw_export.schedule", **TASK_OPTIONS)
def raw_export_schedule() -> None:
    """Start a run for every destination without an open one (unless its last run just failed)."""
    services.runs_schedule(now=timezone.now())
