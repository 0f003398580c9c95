"""Privacy requests' two kinds of outbox work (docs/outbox.md, "Adding a kind"; docs/privacy.md):
a request's run (erase, or make the access document) and its status callbacks. Messages go by
task name (`privacy.request_run`, `privacy.callback_send`), so nothing here imports
privacy.tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction

from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register
from privacy import ending, policy
from privacy.models import (
    CallbackState,
    RequestRun,
    RequestRunAttempt,
    RunState,
    StatusCallback,
    StatusCallbackAttempt,
)

RUN_GIVEN_UP = "Given up: the worker stopped mid-run once too often."


def _callback_exhausted(callback: StatusCallback, now: datetime) -> dict | None:
    if policy.exhausted(callback.attempts_made):
        return {"state": CallbackState.FAILED}
    return None


def _run_exhausted(run: RequestRun, now: datetime) -> dict | None:
    if policy.run_exhausted(run.attempts_made):
        return {"state": RunState.FAILED, "last_error": RUN_GIVEN_UP}
    return None


def _runs_given_up(runs: Sequence[RequestRun], now: datetime) -> None:
    callback_ids = ending.requests_fail(request_ids=[run.pk for run in runs], now=now)
    if callback_ids:
        transaction.on_commit(lambda: callbacks_enqueue(callback_ids))


def _documents_prune(now: datetime) -> None:
    ending.documents_prune(now=now)


RUNS = kind_register(Kind(
    name="privacy request run", work_model=RequestRun, attempt_model=RequestRunAttempt,
    attempt_of="run", send_task="privacy.request_run",
    timeout_setting="PRIVACY_RUN_TIMEOUT_SECONDS", grace_setting="PRIVACY_SWEEP_GRACE_SECONDS",
    exhausted=_run_exhausted, given_up=_runs_given_up, upkeep=_documents_prune,
))

CALLBACKS = kind_register(Kind(
    name="privacy status callback", work_model=StatusCallback,
    attempt_model=StatusCallbackAttempt, attempt_of="callback",
    send_task="privacy.callback_send", timeout_setting="PRIVACY_CALLBACK_TIMEOUT_SECONDS",
    grace_setting="PRIVACY_SWEEP_GRACE_SECONDS", exhausted=_callback_exhausted,
))


def runs_enqueue(request_ids: Sequence[str]) -> None:
    """One message per run (a run's id is its request's). Never raises: the sweep sends one
    whose message was lost."""
    work_enqueue(RUNS, request_ids)


def callbacks_enqueue(callback_ids: Sequence[str]) -> None:
    """One message per callback. Never raises: the sweep sends one whose message was lost."""
    work_enqueue(CALLBACKS, callback_ids)
