"""The Celery queue configuration: a worker started with no -Q consumes every queue a task is
routed to, so the plain command every Celery user types first also sends deliveries."""

from attribution_site.celery import app


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
    """What `celery worker` does with no -Q: it consumes app.amqp.queues, all of them."""
    consumed = set(app.amqp.queues.consume_from)
    assert consumed == declared_queue_names() == {"celery", "delivery"}


def test_delivery_tasks_are_published_to_the_delivery_queue():
    for name in ("delivery.dispatch", "delivery.send", "delivery.sweep", "delivery.prune"):
        assert app.amqp.router.route({}, name)["queue"].name == "delivery"
    assert app.amqp.router.route({}, "tracking.prune_clicks")["queue"].name == "celery"
