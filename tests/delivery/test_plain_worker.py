"""The worker exactly as the README starts it first, with no queue options, in a process of its
own on this test's database and the real Redis broker: it consumes the delivery queue, sends a
postback and a signed webhook to real local receivers, and, with beat started as the README
starts it, a sweep rescues a delivery whose message was lost.
"""

import hashlib
import hmac
import re
import time

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from standardwebhooks import Webhook as StandardWebhook

from attribution_site.celery import app as celery_app
from delivery.models import Delivery, DeliveryAttempt, State
from tests.delivery.helpers import (
    install_event,
    make_postback,
    make_webhook,
    publish,
    purge_delivery_queue,
    wait_until,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def plain_worker(readme_process, trusted_ca):
    return readme_process("worker", ready=" ready.", REQUESTS_CA_BUNDLE=trusted_ca)


def test_a_plain_worker_consumes_every_queue_the_settings_declare(plain_worker, settings):
    answers = celery_app.control.inspect(timeout=5).active_queues()
    assert answers, plain_worker.output()
    [queues] = answers.values()
    declared = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    assert declared == {"celery", "delivery", "raw_export"}
    assert {queue["name"] for queue in queues} == declared


def test_a_postback_and_a_signed_webhook_arrive_through_a_plain_worker(
        app, plain_worker, receiver, tls_receiver):
    make_postback(app, receiver.url("/pb?d={device_id}&c={campaign_id}"))
    _webhook, secret = make_webhook(app, tls_receiver.url("/hook"))
    publish(install_event(app))
    [postback] = receiver.wait_for(1, timeout=30)
    [hook] = tls_receiver.wait_for(1, timeout=30)
    assert postback.method == "GET" and postback.path == "/pb?d=gaid-1234&c=summer_sale"
    assert hook.headers["X-Signature"] == "sha256=" + hmac.new(
        secret.encode(), hook.body, hashlib.sha256).hexdigest()
    body = StandardWebhook(secret).verify(hook.body, hook.headers)
    assert body["event_type"] == "install" and body["data"]["device_id"] == "gaid-1234"
    wait_until(lambda: set(Delivery.objects.values_list("state", flat=True))
               == {State.SUCCEEDED}, timeout=30)
    assert DeliveryAttempt.objects.filter(succeeded=True).count() == 2


def test_a_sweep_sent_by_beat_rescues_a_delivery_whose_message_was_lost(
        app, readme_process, receiver):
    make_postback(app, receiver.url("/pb?d={device_id}"))
    publish(install_event(app))
    delivery = Delivery.objects.get()
    broker = redis.Redis.from_url(settings.REDIS_URL)
    assert broker.llen("delivery") == 1  # its message, waiting
    purge_delivery_queue()  # lost, as in a Redis restart without persistence
    worker = readme_process("worker", ready=" ready.", DELIVERY_SWEEP_GRACE_SECONDS="1")
    time.sleep(1)
    assert receiver.requests == []  # the worker alone never hears of it
    # Beat as the README starts it, sending the sweep every second instead of every minute.
    beat = readme_process("beat", ready="beat: Starting", DELIVERY_SWEEP_INTERVAL_SECONDS="1")
    [request] = receiver.wait_for(1, timeout=30)
    assert request.path == "/pb?d=gaid-1234"
    wait_until(lambda: Delivery.objects.get().state == State.SUCCEEDED, timeout=30)
    assert DeliveryAttempt.objects.get().delivery_id == delivery.id
    assert "Sending due task outbox-sweep (outbox.sweep)" in beat.output()
    assert "delivery sweep re-sent 1 (0 taken back" in worker.output()


def test_delivery_health_names_the_plain_worker_as_the_consumer_of_every_queue(
        plain_worker, capsys):
    call_command("delivery_health", "--timeout", "5")
    out = capsys.readouterr().out
    assert re.search(r"queue delivery: 0 messages waiting, consumed by celery@\S+", out), out
    assert re.search(r"queue celery: 0 messages waiting, consumed by celery@\S+", out), out
    assert out.rstrip().endswith("ok")


def test_readyz_names_the_plain_worker_as_the_consumer_of_the_delivery_queue(
        plain_worker, client, fresh_worker_answer):
    data = client.get("/readyz").json()["data"]
    assert data["checks"]["delivery_workers"] == "ok"
    [worker] = data["delivery_workers"]["workers"]
    assert worker.startswith("celery@")
