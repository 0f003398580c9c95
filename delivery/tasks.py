"""Celery tasks of the delivery queue (spec: Events, "Delivery"). Thin: each takes ids or
nothing, and calls one service. They run on a queue of their own (`delivery`, see settings) so a
slow receiver never holds up other work, with late acknowledgement so a message whose worker
dies is not acknowledged. Failures are not retried by Celery (no autoretry_for): the policy
module classifies every outcome and the service schedules the retry itself. The sweep is the
outbox's one (outbox/tasks.py), over every kind.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from delivery import services
from outbox.tasks import TASK_OPTIONS


@shared_task(name="delivery.dispatch", **TASK_OPTIONS)
def delivery_dispatch(delivery_ids: list[str]) -> None:
    """Fan out on the worker side, so the SDK request that created the deliveries paid for
    one message however many receivers there are."""
    if len(delivery_ids) == 1:
        services.delivery_attempt(delivery_id=delivery_ids[0])
        return
    for delivery_id in delivery_ids:
        delivery_send.apply_async((delivery_id,))


@shared_task(name="delivery.send", **TASK_OPTIONS)
def delivery_send(delivery_id: str) -> None:
    services.delivery_attempt(delivery_id=delivery_id)


@shared_task(name="delivery.prune", **TASK_OPTIONS)
def delivery_prune() -> None:
    """Delete finished deliveries and their attempts older than DELIVERY_LOG_RETENTION_DAYS."""
    services.deliveries_prune(now=timezone.now(),
                              retention_days=settings.DELIVERY_LOG_RETENTION_DAYS)
