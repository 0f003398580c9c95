"""With Redis and a real Celery worker: deliveries leave after commit, retry on schedule, end
in a failed state when the receiver never recovers, and survive a worker killed mid-send and a
Redis flush (the sweep re-sends; the receiver sees every delivery id at least once).

Retry delays and the timeout are shortened through the settings, never by patching.
"""

import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
import redis
from django.utils import timezone
from standardwebhooks import Webhook as StandardWebhook

from delivery.enqueue import DELIVERIES
from delivery.models import Delivery, DeliveryAttempt, State
from outbox.sweep import work_sweep
from outbox.tasks import outbox_sweep
from tests.delivery.helpers import (
    install_event,
    make_postback,
    make_webhook,
    publish,
    purge_delivery_queue,
    running_worker,
    wait_until,
)
from tests.delivery.receivers import Reply

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def quick_schedule(settings):
    settings.DELIVERY_RETRY_DELAYS = [1, 1, 1]
    settings.DELIVERY_TIMEOUT_SECONDS = 1


def finished(delivery_count: int = 1):
    def check():
        rows = list(Delivery.objects.all())
        done = [d for d in rows if d.state in (State.SUCCEEDED, State.FAILED)]
        return rows if len(rows) >= delivery_count and len(done) == len(rows) else None
    return check


def test_a_postback_and_a_signed_webhook_arrive_through_the_worker(
        app, celery_worker, receiver, tls_receiver):
    make_postback(app, receiver.url("/pb?d={device_id}&c={campaign_id}"))
    _webhook, secret = make_webhook(app, tls_receiver.url("/hook"))
    publish(install_event(app))
    wait_until(finished(2))
    [postback] = receiver.requests
    assert postback.path == "/pb?d=gaid-1234&c=summer_sale"
    [hook] = tls_receiver.requests
    expected = hmac.new(secret.encode(), hook.body, hashlib.sha256).hexdigest()
    assert hook.headers["X-Signature"] == f"sha256={expected}"
    body = StandardWebhook(secret).verify(hook.body, hook.headers)
    assert body["event_type"] == "install" and body["data"]["device_id"] == "gaid-1234"
    assert body["id"] == hook.headers["webhook-id"]
    assert set(Delivery.objects.values_list("state", flat=True)) == {State.SUCCEEDED}
    assert DeliveryAttempt.objects.filter(succeeded=True).count() == 2


def test_a_receiver_failing_twice_then_succeeding_gives_three_logged_attempts(
        app, celery_worker, receiver_factory, quick_schedule, owner_api):
    flaky = receiver_factory(Reply(status=500), Reply(status=502))
    make_postback(app, flaky.url("/pb"))
    publish(install_event(app))
    [delivery] = wait_until(finished())
    assert delivery.state == State.SUCCEEDED and delivery.attempts_made == 3
    assert len(flaky.requests) == 3
    gaps = [b.at - a.at for a, b in zip(flaky.requests, flaky.requests[1:], strict=False)]
    assert all(gap >= 0.85 for gap in gaps), gaps  # 1 s delay, 10 % jitter
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert [(e["attempt_number"], e["status_code"], e["success"]) for e in logs] == [
        (3, 200, True), (2, 502, False), (1, 500, False)]


def test_a_receiver_that_always_fails_gives_four_attempts_and_a_failed_state(
        app, celery_worker, receiver_factory, quick_schedule, owner_api):
    broken = receiver_factory(default=Reply(status=500))
    make_postback(app, broken.url("/pb"))
    publish(install_event(app))
    [delivery] = wait_until(finished())
    assert delivery.state == State.FAILED and delivery.attempts_made == 4
    time.sleep(1.5)  # nothing more is scheduled after the fourth
    assert len(broken.requests) == 4
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert [e["attempt_number"] for e in logs] == [4, 3, 2, 1]
    assert {e["delivery_state"] for e in logs} == {"failed"}


def test_a_receiver_slower_than_the_timeout_is_a_logged_timeout(
        app, celery_worker, receiver_factory, settings):
    settings.DELIVERY_TIMEOUT_SECONDS = 1
    settings.DELIVERY_RETRY_DELAYS = [60]
    slow = receiver_factory(Reply(delay=3))
    make_postback(app, slow.url("/pb"))
    publish(install_event(app))
    attempt = wait_until(lambda: DeliveryAttempt.objects.filter(
        finished_at__isnull=False).first())
    assert attempt.error_message == "Timed out after 1 s." and attempt.status_code is None
    assert Delivery.objects.get().state == State.PENDING  # the retry waits its 60 s


def test_a_redirect_fails_and_its_target_is_never_called(
        app, celery_worker, receiver_factory, settings):
    settings.DELIVERY_RETRY_DELAYS = [60]
    target = receiver_factory()
    redirecting = receiver_factory(Reply(status=302, headers={"Location": target.url("/x")}))
    make_postback(app, redirecting.url("/pb"))
    publish(install_event(app))
    attempt = wait_until(lambda: DeliveryAttempt.objects.filter(
        finished_at__isnull=False).first())
    assert attempt.status_code == 302 and attempt.succeeded is False
    assert "not followed" in attempt.error_message
    time.sleep(0.3)
    assert target.requests == []


def worker_process(settings, ca_bundle_path: str, log) -> subprocess.Popen:
    """A worker in a process of its own, on this test's database, that a test can SIGKILL."""
    database = settings.DATABASES["default"]
    env = dict(os.environ,
               DATABASE_URL=(f"postgres://{database['USER']}:{database['PASSWORD'] or ''}@"
                             f"{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"),
               REDIS_URL=settings.REDIS_URL, SECRET_KEY=settings.SECRET_KEY,
               OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", DELIVERY_TIMEOUT_SECONDS="2",
               REQUESTS_CA_BUNDLE=ca_bundle_path, DEBUG="0")
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "attribution_site", "worker", "-Q", "delivery",
         "-P", "solo", "-c", "1", "--without-mingle", "--without-gossip",
         "--without-heartbeat", "-l", "WARNING"],
        cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)


def test_a_worker_killed_mid_send_loses_nothing(app, receiver_factory, settings, trusted_ca,
                                                tmp_path):
    settings.DELIVERY_TIMEOUT_SECONDS = 2  # the dead worker's lease: 2 * 2 + 1 seconds
    purge_delivery_queue()
    hanging = receiver_factory(Reply(delay=30), tls=True)
    _webhook, secret = make_webhook(app, hanging.url("/hook"))
    publish(install_event(app))
    delivery = Delivery.objects.get()
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        process = worker_process(settings, trusted_ca, log)
    try:
        assert hanging.arrived.wait(30), log_path.read_text()
        process.send_signal(signal.SIGKILL)  # mid-send: the request is out, no answer yet
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    delivery.refresh_from_db()
    assert delivery.state == State.SENDING  # claimed by a worker that no longer exists
    with running_worker():
        def resent():  # what beat does every minute, until the lease has run out
            work_sweep(DELIVERIES, now=timezone.now(), grace_seconds=0)
            return len(hanging.requests) >= 2
        wait_until(resent, timeout=20, interval=0.5)
        wait_until(lambda: Delivery.objects.get().state == State.SUCCEEDED)
    ids = [request.headers["webhook-id"] for request in hanging.requests]
    assert ids == [str(delivery.id)] * 2  # seen at least once; the second send is the same id
    StandardWebhook(secret).verify(hanging.requests[1].body, hanging.requests[1].headers)
    attempts = list(DeliveryAttempt.objects.order_by("number"))
    assert [(a.number, a.succeeded) for a in attempts] == [(1, False), (2, True)]
    assert attempts[0].error_message.startswith("Interrupted")


def test_a_redis_flush_loses_nothing(app, receiver_factory, settings, trusted_ca):
    settings.DELIVERY_SWEEP_GRACE_SECONDS = 0
    receivers = [receiver_factory(tls=True), receiver_factory()]
    make_webhook(app, receivers[0].url("/hook"))
    make_postback(app, receivers[1].url("/pb"))
    purge_delivery_queue()
    publish(install_event(app), install_event(app))
    broker = redis.Redis.from_url(settings.REDIS_URL)
    assert broker.llen("delivery") == 1  # one message for the publication, waiting
    broker.flushdb()  # every queued message and binding is gone
    with running_worker():
        time.sleep(1)
        assert all(r.requests == [] for r in receivers)  # the message really was lost
        # What beat's sweep does every minute (run here: this worker consumes the delivery
        # queue only); what it re-sends goes through the broker.
        outbox_sweep()
        wait_until(finished(4))
    assert set(Delivery.objects.values_list("state", flat=True)) == {State.SUCCEEDED}
    delivered = {r.headers["webhook-id"] for r in receivers[0].requests}
    assert delivered == {str(pk) for pk in Delivery.objects.filter(
        kind="webhook").values_list("id", flat=True)}
    assert len(receivers[1].requests) == 2


def test_an_install_through_the_api_reaches_the_postback_and_the_signed_webhook(
        app, sdk_key, api, owner_api, celery_worker, receiver, tls_receiver):
    """Delivery end to end: configure both, send an install, see both arrive and logged."""
    created = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": receiver.url("/pb?d={device_id}&src={media_source}&c={campaign_id}"
                                     "&m={match_type}&conf={confidence}")}, format="json")
    assert created.status_code == 201
    hook = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": tls_receiver.url("/hook"), "events": ["install"]},
        format="json").json()["data"]
    click = api.get(f"/api/v1/clicks?app_id={app.id}&pid=network_a&c=launch"
                    "&advertising_id=3f1c2a9e-0d4b-4a57-9c1e-7b2d5e8f6a01",
                    HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 14; Pixel 8)")
    assert click.status_code == 302
    install = api.post("/api/v1/installs", {
        "app_id": str(app.id), "platform": "android", "sdk_version": "1.0.0",
        "device_id": "3f1c2a9e-0d4b-4a57-9c1e-7b2d5e8f6a01"}, format="json",
        HTTP_X_API_KEY=sdk_key)
    assert install.status_code == 201, install.content
    assert install.json()["data"]["mediaSource"] == "network_a"
    wait_until(finished(2))
    [postback] = receiver.requests
    query = dict(parse_qsl(urlsplit(postback.path).query))
    assert query.pop("conf") == str(install.json()["data"]["confidence"]).removesuffix(".0")
    assert query == {"d": "3f1c2a9e-0d4b-4a57-9c1e-7b2d5e8f6a01", "src": "network_a",
                     "c": "launch", "m": "device_id"}
    [webhook] = tls_receiver.requests
    body = StandardWebhook(hook["secret"]).verify(webhook.body, webhook.headers)
    assert body["event_type"] == "install"
    assert body["data"]["media_source"] == "network_a" and body["data"]["is_organic"] is False
    assert webhook.headers["X-Signature"] == "sha256=" + hmac.new(
        hook["secret"].encode(), webhook.body, hashlib.sha256).hexdigest()
    postback_logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]
    webhook_logs = owner_api.get(f"/api/v1/webhooks/logs?app_id={app.id}").json()["data"]
    assert [e["success"] for e in postback_logs["logs"]] == [True]
    assert [e["success"] for e in webhook_logs["logs"]] == [True]
    assert webhook_logs["logs"][0]["delivery_id"] == body["id"]


def test_an_organic_install_through_the_api_emits_only_the_webhook(
        app, sdk_key, api, owner_api, celery_worker, receiver, tls_receiver):
    owner_api.post("/api/v1/postbacks", {"app_id": str(app.id), "media_source": "network_a",
                                         "postback_url": receiver.url("/pb")}, format="json")
    owner_api.post("/api/v1/webhooks", {"app_id": str(app.id), "url": tls_receiver.url("/h"),
                                        "events": ["install"]}, format="json")
    install = api.post("/api/v1/installs", {"app_id": str(app.id), "platform": "android",
                                            "sdk_version": "1.0.0"}, format="json",
                       HTTP_X_API_KEY=sdk_key)
    assert install.status_code == 201 and install.json()["data"]["isOrganic"] is True
    wait_until(finished(1))
    [webhook] = tls_receiver.requests
    assert json.loads(webhook.body)["data"]["is_organic"] is True
    assert receiver.requests == [] and Delivery.objects.count() == 1


def test_the_worker_refuses_a_private_destination_at_send(app, celery_worker, receiver,
                                                          settings):
    make_postback(app, receiver.url("/pb").replace("127.0.0.1", "2130706433"))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    publish(install_event(app))
    [delivery] = wait_until(finished())
    assert delivery.state == State.FAILED and delivery.attempts_made == 1
    attempt = delivery.attempts.get()
    assert attempt.error_message == (
        "Refused: 2130706433 resolves to 127.0.0.1. 127.0.0.1 is a loopback address.")
    assert receiver.requests == []
