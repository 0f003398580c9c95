"""Celery tasks of data-subject requests (docs/privacy.md). Thin: each takes an id and calls one
service. They go to the default queue (`celery`), which a plain `celery -A attribution_site
worker` consumes. No autoretry: a run and a callback are outbox kinds, retried on privacy.policy's
schedule, and swept by the outbox's one sweep (outbox/tasks.py). A run may take longer than the
default task limit (an erasure reads the app's whole click archive): its own limit follows
PRIVACY_RUN_TIMEOUT_SECONDS, the budget its outbox lease is made from.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from outbox.tasks import TASK_OPTIONS
from privacy import services


@shared_task(name="privacy.request_run", soft_time_limit=settings.PRIVACY_RUN_TIMEOUT_SECONDS,
             time_limit=settings.PRIVACY_RUN_TIMEOUT_SECONDS + 30, **TASK_OPTIONS)
def privacy_request_run(request_id: str) -> None:
    services.request_run(request_id=request_id)


@shared_task(name="privacy.callback_send", **TASK_OPTIONS)
def privacy_callback_send(callback_id: str) -> None:
    services.callback_attempt(callback_id=callback_id)
