"""The Celery queue configuration: a worker started with no -Q consumes every queue a task is
routed to, so the plain command every Celery user types first also sends deliveries."""

import shlex

from celery import Celery

from attribution_site.celery import app
from tests.processes import readme_commands


def declared_queue_names() -> set[str]:
    return {queue.name for queue in app.conf.task_queues}


def routed_queue_names() -> set[str]:
    return {route["queue"] for route in app.conf.task_routes.values()}


def test_every_routed_queue_is_declared_so_a_plain_worker_consumes_it():
    assert "delivery" in routed_queue_names()
    assert routed_queue_names() <= declared_queue_names()


def test_the_default_queue_is_declared_too():
    assert app.conf.task_default_queue == "celery"
    assert "celery" in declared_queue_names()


def test_a_worker_without_queue_options_selects_every_declared_queue():
    """What `celery worker` does with no -Q: it consumes app.amqp.queues, all of them. A fresh
    app configured like ours, because in-process test workers narrow this one's selection."""
    fresh = Celery("attribution_site")
    fresh.config_from_object("django.conf:settings", namespace="CELERY")
    consumed = set(fresh.amqp.queues.consume_from)
    assert consumed == declared_queue_names() == {"celery", "delivery", "raw_export"}


def test_delivery_tasks_are_published_to_the_delivery_queue():
    for name in ("delivery.dispatch", "delivery.send", "delivery.prune"):
        assert app.amqp.router.route({}, name)["queue"].name == "delivery"
    # The one sweep of every kind goes where every worker listens.
    for name in ("tracking.prune_clicks", "outbox.sweep"):
        assert app.amqp.router.route({}, name)["queue"].name == "celery"


def test_the_readmes_first_worker_command_has_no_queue_option_and_a_delivery_pool_is_shown():
    first, *others = readme_commands("worker")
    assert "-Q" not in shlex.split(first)
    assert "celery -A attribution_site worker -Q delivery --loglevel=INFO" in others
