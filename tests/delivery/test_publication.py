"""What publishing costs on the SDK hot path, the embedded default without a broker, and the
admin's redeliver action."""

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from attribution_site.celery import app as celery_app
from attribution_site.write_batch import WriteBatch
from delivery import enqueue, services
from delivery.models import Delivery, DeliveryAttempt, State
from outbox import sweep
from tests.delivery.helpers import (
    event_tracked,
    install_event,
    make_postback,
    make_webhook,
    publish,
)
from tests.delivery.receivers import Reply

pytestmark = pytest.mark.django_db


def test_an_app_with_nothing_configured_adds_nothing_to_the_batch(
        app, django_capture_on_commit_callbacks):
    batch = WriteBatch()
    with CaptureQueriesContext(connection) as lookups:
        services.deliveries_for_events([event_tracked(app, event_id=n) for n in range(100)],
                                       batch)
    assert len(lookups) <= 1  # the targets, unless this process has them cached
    with CaptureQueriesContext(connection) as writes, \
            django_capture_on_commit_callbacks() as callbacks:
        batch.execute()
    assert len(writes) == 0
    assert callbacks == []


def test_a_batch_of_100_events_adds_one_insert_and_one_message(
        app, django_capture_on_commit_callbacks):
    make_webhook(app, "https://hooks.example/h", events=["event"])
    make_postback(app, "https://network.example/pb", events=["event"])
    batch = WriteBatch()
    services.deliveries_for_events([event_tracked(app, event_id=n) for n in range(100)], batch)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks() as callbacks:
        batch.execute()
    statements = [query["sql"].lstrip("(").split()[0] for query in queries]
    statements = [s for s in statements if s not in ("SAVEPOINT", "RELEASE")]
    # The rows in one bulk INSERT (SQLite splits it at its variable limit).
    assert set(statements) == {"INSERT"}
    if connection.vendor == "postgresql":
        assert len(statements) == 1
    assert len(callbacks) == 1
    assert Delivery.objects.filter(kind="webhook").count() == 100
    assert Delivery.objects.filter(kind="postback").count() == 100


@pytest.mark.redis
def test_the_one_message_carries_every_delivery_of_the_publication(app):
    make_webhook(app, "https://hooks.example/h", events=["event"])
    broker = redis.Redis.from_url(django_settings.REDIS_URL)
    broker.delete("delivery")
    enqueue.deliveries_enqueue([str(pk) for pk in range(3)])
    assert broker.llen("delivery") == 1


@pytest.fixture
def embedded_default():
    """The broker-less default (CELERY_TASK_ALWAYS_EAGER), whatever this run's REDIS_URL."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


def test_without_a_broker_a_delivery_is_tried_once_in_process_then_by_the_sweep(
        app, receiver_factory, settings, embedded_default, django_capture_on_commit_callbacks):
    settings.DELIVERY_RETRY_DELAYS = [0, 0, 0]
    flaky = receiver_factory(Reply(status=500), Reply(status=500))
    make_postback(app, flaky.url("/pb"))
    with django_capture_on_commit_callbacks(execute=True):
        publish(install_event(app))
    # Once, right after commit, in this process; the retry waits for the sweep.
    assert len(flaky.requests) == 1
    assert Delivery.objects.get().state == State.PENDING
    assert sweep.grace_seconds(enqueue.DELIVERIES) == 0
    for _ in range(2):
        sweep.kind_sweep(enqueue.DELIVERIES, now=timezone.now())
    assert len(flaky.requests) == 3
    delivery = Delivery.objects.get()
    assert delivery.state == State.SUCCEEDED and delivery.attempts_made == 3


def test_the_admin_redelivers_failed_deliveries_with_one_more_attempt(
        app, receiver_factory, settings, django_user_model, django_capture_on_commit_callbacks,
        embedded_default):
    settings.DELIVERY_RETRY_DELAYS = [0]
    flaky = receiver_factory(Reply(status=500), Reply(status=200), Reply(status=500))
    make_postback(app, flaky.url("/pb"))
    publish(install_event(app), install_event(app))
    sweep.work_sweep(enqueue.DELIVERIES, now=timezone.now(), grace_seconds=0)
    sweep.work_sweep(enqueue.DELIVERIES, now=timezone.now(), grace_seconds=0)
    failed = Delivery.objects.get(state=State.FAILED)
    succeeded = Delivery.objects.get(state=State.SUCCEEDED)
    assert failed.attempts_made == 2

    staff = django_user_model.objects.create_superuser("ops@example.com", "correct horse")
    client = Client()
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/admin/delivery/delivery/", {
            "action": "redeliver", "_selected_action": [str(failed.id), str(succeeded.id)]},
            follow=True)
    assert response.status_code == 200
    assert "Queued 1 deliveries" in response.content.decode()
    failed.refresh_from_db()
    assert failed.state == State.SUCCEEDED and failed.attempts_made == 3
    assert DeliveryAttempt.objects.filter(delivery=failed).count() == 3
    assert len(flaky.requests) == 4


def test_the_admin_shows_a_delivery_and_escapes_response_bodies(app, receiver_factory,
                                                               django_user_model):
    noisy = receiver_factory(Reply(status=500, body=b"<script>alert('x')</script>"))
    make_postback(app, noisy.url("/pb"))
    publish(install_event(app))
    services.delivery_attempt(delivery_id=Delivery.objects.get().id)
    staff = django_user_model.objects.create_superuser("ops@example.com", "correct horse")
    client = Client()
    client.force_login(staff)
    delivery = Delivery.objects.get()
    page = client.get(f"/admin/delivery/delivery/{delivery.id}/change/").content.decode()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "<script>alert(" not in page
    for path in ("/admin/delivery/webhook/", "/admin/delivery/postbackconfig/",
                 "/admin/delivery/deliveryattempt/", "/admin/delivery/delivery/"):
        assert client.get(path).status_code == 200, path
