"""Handing deliveries to the workers (spec: Events, "Delivery"; docs/delivery.md, "Never
lost"): the one dispatch message of a publication, a sweep or a redeliver, and the countdown
message of a retry. The services call this module and the tasks call the services, so it
imports the tasks only when it sends: nothing imports `delivery.tasks` while being imported.
Sending never raises, because a delivery is a committed row before it is a message and the
sweep finds one whose message never reached the broker.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from attribution_site import redis_rest
from attribution_site.celery import app as celery_app

logger = logging.getLogger(__name__)


def runs_in_process() -> bool:
    """The embedded default (no REDIS_URL, so no broker): a task runs in the sending process
    the moment it is sent, countdown or not."""
    return celery_app.conf.task_always_eager


def deliveries_enqueue(delivery_ids: Sequence[str]) -> None:
    """Hand deliveries to the workers in one message. Never raises: the rows are committed,
    and a delivery whose message never reaches Redis is found by the sweep."""
    if not delivery_ids:
        return
    if redis_rest.resting():  # a hung broker would hold the request for seconds
        logger.warning("Redis at rest: %d deliveries left to the sweep", len(delivery_ids))
        return
    from delivery import tasks  # at call time: tasks import the services, which import this

    try:
        tasks.delivery_dispatch.apply_async(
            (list(delivery_ids),),
            retry=True, retry_policy={"max_retries": 1, "interval_start": 0.1})
    except Exception:  # noqa: BLE001 - any broker failure; the sweep is the fallback
        redis_rest.failed()
        logger.warning("could not enqueue %d deliveries; the sweep will send them",
                       len(delivery_ids), exc_info=True)


def delivery_retry_enqueue(delivery_id: str, delay: float) -> None:
    """Send the retry of a delivery after `delay` seconds. Never raises: the delivery is
    pending in the database, and the sweep sends it when this message is lost."""
    if runs_in_process():
        # An eager task would run at once, ignoring the countdown: the beat sweep sends the
        # retry when it is due.
        return
    from delivery import tasks  # at call time, as above

    try:
        tasks.delivery_send.apply_async((delivery_id,), countdown=delay)
    except Exception:  # noqa: BLE001 - the delivery is pending in the database; the sweep sends it
        logger.warning("could not schedule the retry of %s; the sweep will", delivery_id,
                       exc_info=True)
