"""Handing work to the workers (docs/outbox.md, "Never lost"): messages are sent by the task's
registered name, so no kind's enqueueing imports its tasks module (the tasks import the
services, which enqueue). Sending never raises: a row is committed before it is a message, and
the sweep finds one whose message never reached the broker.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from attribution_site import redis_clients, scheduler
from attribution_site.celery import app as celery_app
from outbox.kind import Kind

logger = logging.getLogger(__name__)

# A lost enqueue costs one short wait on a broker that is coming back, then the sweep.
RETRY_POLICY = {"max_retries": 1, "interval_start": 0.1}


def runs_in_process() -> bool:
    """The embedded default (no REDIS_URL, so no broker): a task runs in the sending process
    the moment it is sent, countdown or not."""
    return celery_app.conf.task_always_eager


@functools.cache
def _tasks_registered() -> None:
    """Import every app's tasks module (Celery's autodiscovery), once per process. A worker
    does so when it starts; a web process does not, and an unregistered name sent in-process
    would go to a broker that is not there and be lost until the sweep."""
    celery_app.loader.import_default_modules()


def _send(task_name: str, args: tuple, **options) -> None:
    # A signature by name resolves the registered task, so the embedded default runs it
    # in-process (a plain send_task would only queue it).
    if runs_in_process():
        _tasks_registered()
    celery_app.signature(task_name, args=args).apply_async(**options)


def work_enqueue(kind: Kind, work_ids: Sequence[str]) -> None:
    """Hand rows to the workers: one message for all of them when the kind has a batch task,
    else one each. Never raises."""
    if not work_ids:
        return
    if redis_clients.resting():  # a hung broker would hold the request for seconds
        logger.warning("Redis at rest: %d left to the sweep (%s)", len(work_ids), kind.name)
        return
    batches = [(list(work_ids),)] if kind.batch_task else [(work_id,) for work_id in work_ids]
    for args in batches:
        try:
            _send(kind.batch_task or kind.send_task, args, retry=True,
                  retry_policy=RETRY_POLICY)
        except Exception:  # noqa: BLE001 - any broker failure; the sweep is the fallback
            redis_clients.failed()
            logger.warning("could not enqueue %d (%s); the sweep will send them",
                           len(work_ids), kind.name, exc_info=True)
            return


def retry_enqueue(kind: Kind, work_id: str, delay: float) -> None:
    """Send the retry of a row after `delay` seconds. Never raises: the row is pending in the
    database, and the sweep sends it when this message is lost."""
    if runs_in_process():
        # An eager task would run at once, ignoring the countdown: the web process's schedule
        # thread runs it when due (attribution_site/scheduler.py); where none runs (a shell, a
        # management command), the sweep sends it.
        scheduler.run_later(kind.send_task, (work_id,), delay=delay)
        return
    try:
        _send(kind.send_task, (work_id,), countdown=delay)
    except Exception:  # noqa: BLE001 - the row is pending in the database; the sweep sends it
        logger.warning("could not schedule the retry of %s %s; the sweep will", kind.name,
                       work_id, exc_info=True)

