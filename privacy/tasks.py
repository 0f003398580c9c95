"""Celery tasks of data-subject requests (docs/privacy.md). Thin: each takes an id or nothing
and calls one service. They go to the default queue (`celery`), which a plain
`celery -A attribution_site worker` consumes; no autoretry: a request that failed stays in
progress until the sweep runs it again, and privacy.policy classifies every callback outcome.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from privacy import services

TASK_OPTIONS = {"acks_late": True, "ignore_result": True}


@shared_task(name="privacy.request_run", **TASK_OPTIONS)
def privacy_request_run(request_id: str) -> None:
    services.request_run(request_id=request_id)


@shared_task(name="privacy.requests_sweep", **TASK_OPTIONS)
def privacy_requests_sweep() -> None:
    services.requests_sweep(now=timezone.now())


@shared_task(name="privacy.callback_send", **TASK_OPTIONS)
def privacy_callback_send(callback_id: str) -> None:
    services.callback_attempt(callback_id=callback_id)


@shared_task(name="privacy.callbacks_sweep", **TASK_OPTIONS)
def privacy_callbacks_sweep() -> None:
    services.callbacks_sweep(now=timezone.now())
