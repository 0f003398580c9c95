"""Deliveries from facts to receivers, sent in this process exactly as a worker task does
(services.delivery_attempt) to real local HTTP and HTTPS receivers."""

import hashlib
import hmac
import json
import time
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone
from standardwebhooks import Webhook as StandardWebhook

from delivery import services
from delivery.enqueue import DELIVERIES
from delivery.models import Delivery, DeliveryAttempt, State
from outbox.sweep import work_sweep
from tests.delivery.helpers import (
    attempt_all,
    event_tracked,
    install_event,
    make_postback,
    make_webhook,
    publish,
    reengaged,
)
from tests.delivery.receivers import Reply

pytestmark = pytest.mark.django_db

TEMPLATE = ("/pb?app={app_id}&d={device_id}&src={media_source}&c={campaign_id}&m={match_type}"
            "&it={install_time}&ct={click_time}&conf={confidence}")


def iso(moment):
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def query_of(request):
    return {k: v[0] for k, v in parse_qs(urlsplit(request.path).query,
                                         keep_blank_values=True).items()}


def test_an_attributed_install_posts_back_with_every_macro_filled(app, receiver):
    make_postback(app, receiver.url(TEMPLATE))
    install = install_event(app)
    publish(install)
    [attempt] = attempt_all()
    [request] = receiver.requests
    assert request.method == "GET" and request.body == b""
    assert query_of(request) == {
        "app": str(app.id), "d": "gaid-1234", "src": "network_a", "c": "summer_sale",
        "m": "device_id", "conf": "97.5",
        "it": iso(install.installed_at), "ct": iso(install.click_time),
    }
    assert attempt.succeeded is True and attempt.status_code == 200
    assert attempt.number == 1 and attempt.response_body == "ok"
    delivery = Delivery.objects.get()
    assert delivery.state == State.SUCCEEDED and delivery.source_id == str(install.install_id)
    assert delivery.attempts_made == 1 and delivery.completed_at is not None


def test_a_post_postback_sends_the_url_and_the_values_as_json(app, receiver):
    make_postback(app, receiver.url("/pb?d={device_id}"), method="POST")
    publish(install_event(app))
    attempt_all()
    [request] = receiver.requests
    assert request.method == "POST" and query_of(request) == {"d": "gaid-1234"}
    assert request.headers["Content-Type"] == "application/json"
    values = json.loads(request.body)
    assert values["device_id"] == "gaid-1234" and values["confidence"] == 97.5
    assert values["media_source"] == "network_a"


def test_postbacks_go_only_to_the_installs_media_source_and_never_for_organics(app,
                                                                               receiver):
    make_postback(app, receiver.url("/a"), media_source="network_a")
    make_postback(app, receiver.url("/b"), media_source="network_b")
    make_postback(app, receiver.url("/inactive"), media_source="network_c", active=False)
    publish(install_event(app, media_source="network_b"),
            install_event(app, media_source=None, campaign_id=None, is_organic=True,
                          match_type="organic", confidence=0.0, device_id="organic-device"),
            install_event(app, media_source="network_c"))
    attempt_all()
    assert [r.path for r in receiver.requests] == ["/b"]
    assert Delivery.objects.count() == 1


def test_every_install_emits_an_install_webhook_organic_ones_included(app, tls_receiver):
    _webhook, _secret = make_webhook(app, tls_receiver.url("/hook"), events=["install"])
    publish(install_event(app, media_source=None, campaign_id=None, is_organic=True,
                          match_type="organic", confidence=0.0))
    attempt_all()
    [request] = tls_receiver.requests
    body = json.loads(request.body)
    assert body["event_type"] == "install"
    assert body["data"]["is_organic"] is True and body["data"]["media_source"] is None


def test_a_webhook_is_signed_over_the_exact_bytes_sent(app, tls_receiver):
    webhook, secret = make_webhook(app, tls_receiver.url("/hook"))
    install = install_event(app)
    publish(install)
    [attempt] = attempt_all()
    [request] = tls_receiver.requests
    delivery = Delivery.objects.get()
    # Independent HMAC over the raw body, keyed with the secret exactly as shown at creation.
    expected = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["X-Signature"] == f"sha256={expected}"
    # And an off-the-shelf Standard Webhooks verifier accepts the same request.
    verified = StandardWebhook(secret).verify(request.body, request.headers)
    assert verified["id"] == str(delivery.id) == request.headers["webhook-id"]
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 30
    assert verified["event_type"] == "install"
    assert abs(verified["timestamp"] - time.time() * 1000) < 30_000
    assert verified["data"] == {
        "app_id": str(app.id), "install_id": str(install.install_id), "device_id": "gaid-1234",
        "platform": "android", "media_source": "network_a", "campaign_id": "summer_sale",
        "match_type": "device_id", "confidence": 97.5, "is_organic": False,
        "install_time": verified["data"]["install_time"],
        "click_time": verified["data"]["click_time"], "consent": None,
        "fraud": {"status": "clean", "reasons": []}}
    assert request.body == delivery.body.encode()
    assert request.method == "POST" and request.headers["Content-Type"] == "application/json"
    assert attempt.succeeded and attempt.url == tls_receiver.url("/hook")


def test_a_retry_sends_the_same_id_and_body_with_a_fresh_signature(app, tls_receiver,
                                                                   receiver_factory, settings):
    settings.DELIVERY_RETRY_DELAYS = [0, 0, 0]
    tls_receiver._replies.append(Reply(status=503))
    _webhook, secret = make_webhook(app, tls_receiver.url("/hook"))
    publish(install_event(app))
    attempt_all()
    attempt_all()
    first, second = tls_receiver.requests
    assert first.body == second.body
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.headers["X-Signature"] == second.headers["X-Signature"]
    StandardWebhook(secret).verify(second.body, second.headers)
    assert list(DeliveryAttempt.objects.order_by("number").values_list(
        "number", "status_code", "succeeded")) == [(1, 503, False), (2, 200, True)]


def test_event_batches_deliver_each_event_where_subscribed(app, tls_receiver, receiver):
    make_webhook(app, tls_receiver.url("/hook"), events=["event"])
    make_postback(app, receiver.url("/pb?e={event_name}&r={event_revenue}&cur={event_currency}"
                                    "&t={event_type}"), events=["event"])
    from decimal import Decimal

    publish(*[event_tracked(app, event_id=n, event_name=f"level_{n}",
                            revenue_amount=Decimal("1.50") if n == 2 else None,
                            revenue_currency="EUR" if n == 2 else None) for n in (1, 2, 3)])
    attempt_all()
    hooks = [json.loads(r.body) for r in tls_receiver.requests]
    assert sorted(h["data"]["event_name"] for h in hooks) == ["level_1", "level_2", "level_3"]
    assert {h["event_type"] for h in hooks} == {"event"}
    assert hooks[0]["data"]["properties"] == {"amount": 4.99, "currency": "EUR"}
    postbacks = sorted((query_of(r) for r in receiver.requests), key=lambda q: q["e"])
    assert postbacks[1] == {"e": "level_2", "r": "1.5", "cur": "EUR", "t": "event"}


def test_installs_do_not_post_back_where_only_events_are_wanted(app, receiver):
    make_postback(app, receiver.url("/pb"), events=["event"])
    publish(install_event(app))
    assert not Delivery.objects.exists()


def test_a_reengagement_webhook_carries_the_new_and_the_original_source(app, tls_receiver):
    make_webhook(app, tls_receiver.url("/hook"), events=["re-engagement"])
    fact = reengaged(app)
    publish(fact)
    publish(install_event(app))  # not subscribed
    attempt_all()
    [request] = tls_receiver.requests
    body = json.loads(request.body)
    assert body["event_type"] == "re-engagement"
    assert body["data"]["reengagement_id"] == str(fact.reengagement_id)
    assert body["data"]["media_source"] == "network_a"
    assert body["data"]["original_media_source"] == "network_b"
    assert body["data"]["match_type"] == "device_id"


def test_a_fact_published_twice_is_delivered_once(app, receiver):
    make_postback(app, receiver.url("/pb"))
    install = install_event(app)
    publish(install)
    publish(install)
    attempt_all()
    assert len(receiver.requests) == 1 and Delivery.objects.count() == 1


def test_a_rolled_back_install_leaves_no_delivery(app, receiver):
    from django.db import transaction

    from attribution_site import domain_events

    make_postback(app, receiver.url("/pb"))
    with pytest.raises(RuntimeError), transaction.atomic():
        domain_events.publish([install_event(app)])
        raise RuntimeError("the install failed after publishing")
    assert not Delivery.objects.exists()


def test_a_deactivated_or_deleted_configuration_cancels_its_open_deliveries(app, receiver):
    deactivated = make_postback(app, receiver.url("/a"), media_source="network_a")
    deleted = make_postback(app, receiver.url("/b"), media_source="network_b")
    publish(install_event(app, media_source="network_a"),
            install_event(app, media_source="network_b"))
    services.postback_update(postback=deactivated, changes={"active": False})
    services.postback_delete(postback=deleted)
    assert attempt_all() == [None, None]
    assert receiver.requests == []
    assert set(Delivery.objects.values_list("state", flat=True)) == {State.CANCELLED}
    assert not DeliveryAttempt.objects.exists()


def test_a_corrected_url_applies_to_pending_retries(app, receiver_factory, settings):
    settings.DELIVERY_RETRY_DELAYS = [0, 0, 0]
    broken = receiver_factory(default=Reply(status=404))
    fixed = receiver_factory()
    postback = make_postback(app, broken.url("/old?d={device_id}"))
    publish(install_event(app))
    attempt_all()
    services.postback_update(postback=postback,
                             changes={"postback_url": fixed.url("/new?d={device_id}")})
    attempt_all()
    assert len(broken.requests) == 1 and [r.path for r in fixed.requests] == ["/new?d=gaid-1234"]
    assert Delivery.objects.get().state == State.SUCCEEDED


def test_a_failure_schedules_a_retry_after_the_first_delay(app, receiver_factory, settings):
    settings.DELIVERY_RETRY_DELAYS = [60, 300, 1800]
    failing = receiver_factory(default=Reply(status=500, body=b"down"))
    make_postback(app, failing.url("/pb"))
    publish(install_event(app))
    before = timezone.now()
    [attempt] = attempt_all()
    delivery = Delivery.objects.get()
    assert attempt.succeeded is False and attempt.status_code == 500
    assert attempt.error_message == "Receiver answered 500." and attempt.response_body == "down"
    assert delivery.state == State.PENDING and delivery.attempts_made == 1
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert 54 <= wait <= 67
    assert attempt_all() == [None]  # not due yet: nothing is sent early
    assert len(failing.requests) == 1


def test_four_failures_leave_the_delivery_failed(app, receiver_factory, settings):
    settings.DELIVERY_RETRY_DELAYS = [0, 0, 0]
    failing = receiver_factory(default=Reply(status=500))
    make_postback(app, failing.url("/pb"))
    publish(install_event(app))
    for _ in range(6):
        attempt_all()
    delivery = Delivery.objects.get()
    assert delivery.state == State.FAILED and delivery.attempts_made == 4
    assert len(failing.requests) == 4
    assert list(delivery.attempts.order_by("number").values_list("number", flat=True)) == [
        1, 2, 3, 4]


def test_a_receiver_slower_than_the_timeout_is_a_logged_timeout(app, receiver_factory,
                                                                settings):
    settings.DELIVERY_TIMEOUT_SECONDS = 1
    slow = receiver_factory(default=Reply(delay=3))
    make_postback(app, slow.url("/pb"))
    publish(install_event(app))
    started = time.monotonic()
    [attempt] = attempt_all()
    assert time.monotonic() - started < 2.5
    assert attempt.succeeded is False and attempt.status_code is None
    assert attempt.error_message == "Timed out after 1 s."
    assert 900 <= attempt.duration_ms < 2000
    assert Delivery.objects.get().state == State.PENDING


def test_a_trickling_receiver_cannot_stretch_the_timeout(
        app, settings, private_destinations_allowed):
    """A receiver that sends a byte every half second never trips a per-read timeout; the
    total budget still ends the attempt."""
    import socket
    import threading

    settings.DELIVERY_TIMEOUT_SECONDS = 1
    server = socket.create_server(("127.0.0.1", 0))

    def trickle():
        conn, _ = server.accept()
        conn.recv(65536)
        try:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 100:
                conn.send(bytes([byte]))
                time.sleep(0.3)
        except OSError:
            pass
        conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    make_postback(app, f"http://127.0.0.1:{server.getsockname()[1]}/pb")
    publish(install_event(app))
    started = time.monotonic()
    [attempt] = attempt_all()
    server.close()
    assert time.monotonic() - started < 2
    assert attempt.error_message == "Timed out after 1 s."


def test_a_redirect_is_a_failure_and_its_target_is_never_called(app, receiver_factory):
    target = receiver_factory()
    redirecting = receiver_factory(default=Reply(status=302, headers={
        "Location": target.url("/stolen")}))
    make_postback(app, redirecting.url("/pb"))
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.succeeded is False and attempt.status_code == 302
    assert attempt.error_message.startswith("Redirect (302) to http://127.0.0.1:")
    assert "not followed" in attempt.error_message
    assert target.requests == []


def test_an_untrusted_certificate_is_a_connection_failure(app, receiver_factory, monkeypatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    untrusted = receiver_factory(tls=True)
    make_webhook(app, untrusted.url("/hook"))
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.succeeded is False
    assert attempt.error_message.startswith("TLS certificate not accepted")
    assert untrusted.requests == []


def test_a_connection_refused_is_logged(app, receiver_factory):
    gone = receiver_factory()
    gone.stop()
    make_postback(app, gone.url("/pb"))
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.error_message == "Connection refused." and attempt.status_code is None


def one_shot_server(answer):
    """A local server that reads the request, then does `answer(connection)`."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = server.accept()
        conn.recv(65536)
        answer(conn)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server


def _reset(conn):
    import socket
    import struct

    # Linger 0: closing sends a reset instead of a goodbye.
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


@pytest.mark.parametrize(("answer", "message"), [
    (lambda conn: conn.sendall(b"NOT HTTP AT ALL\r\n\r\n"), "The receiver's answer is not HTTP."),
    (_reset, "The receiver reset the connection."),
])
def test_connection_failures_are_logged_in_words_not_python_names(
        app, answer, message, private_destinations_allowed):
    server = one_shot_server(answer)
    make_postback(app, f"http://127.0.0.1:{server.getsockname()[1]}/pb")
    publish(install_event(app))
    [attempt] = attempt_all()
    server.close()
    assert attempt.error_message == message and attempt.status_code is None


def test_a_name_that_does_not_resolve_is_logged_in_words(app):
    make_postback(app, "http://hooks.not-resolvable.invalid/pb")
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.error_message == "Could not resolve hooks.not-resolvable.invalid: no such name."


def test_response_bodies_are_kept_as_truncated_text(app, receiver_factory):
    noisy = receiver_factory(default=Reply(
        status=500, body=b"<script>alert(1)</script>\x00" + b"x" * 10_000))
    make_postback(app, noisy.url("/pb"))
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.response_body.startswith("<script>alert(1)</script>\ufffd")
    assert len(attempt.response_body) == 2048


def test_two_workers_claiming_one_delivery_send_it_once(app, receiver):
    """The conditional UPDATE: a duplicated message finds the delivery taken or done."""
    make_postback(app, receiver.url("/pb"))
    publish(install_event(app))
    delivery_id = Delivery.objects.get().id
    assert services.delivery_attempt(delivery_id=delivery_id) is not None
    assert services.delivery_attempt(delivery_id=delivery_id) is None
    assert len(receiver.requests) == 1


def test_a_delivery_whose_worker_died_is_taken_back_by_the_sweep(app, receiver, settings):
    make_postback(app, receiver.url("/pb"))
    publish(install_event(app))
    delivery = Delivery.objects.get()
    # What a worker killed mid-send leaves behind: claimed, an attempt with no outcome.
    now = timezone.now()
    Delivery.objects.filter(id=delivery.id).update(
        state=State.SENDING, attempts_made=1, lease_expires_at=now - timedelta(seconds=1))
    DeliveryAttempt.objects.create(delivery=delivery, app=app, kind="postback", number=1,
                                   http_method="GET", url="http://x/", started_at=now)
    requeued = work_sweep(DELIVERIES, now=timezone.now(), grace_seconds=120)
    assert requeued == [str(delivery.id)]
    interrupted = DeliveryAttempt.objects.get(number=1)
    assert interrupted.succeeded is False and interrupted.error_message.startswith("Interrupted")
    attempt_all()
    assert len(receiver.requests) == 1
    delivery.refresh_from_db()
    assert delivery.state == State.SUCCEEDED and delivery.attempts_made == 2


def test_the_sweep_re_enqueues_only_deliveries_past_the_grace(app, receiver):
    make_postback(app, receiver.url("/pb"))
    publish(install_event(app), install_event(app))
    old, fresh = Delivery.objects.order_by("created_at")
    five_minutes_ago = timezone.now() - timedelta(minutes=5)
    # Created five minutes ago and never sent: its message was lost.
    Delivery.objects.filter(id=old.id).update(next_attempt_at=five_minutes_ago,
                                              created_at=five_minutes_ago,
                                              updated_at=five_minutes_ago)
    assert work_sweep(DELIVERIES, now=timezone.now(), grace_seconds=120) == [str(old.id)]
    # Re-enqueued once per grace period, not on every sweep.
    assert work_sweep(DELIVERIES, now=timezone.now(), grace_seconds=120) == []


def test_finished_deliveries_are_pruned_after_the_retention(app, receiver):
    make_postback(app, receiver.url("/pb"))
    publish(install_event(app))
    attempt_all()
    assert services.deliveries_prune(now=timezone.now(), retention_days=30) == 0
    later = timezone.now() + timedelta(days=31)
    assert services.deliveries_prune(now=later, retention_days=30) == 1
    assert not Delivery.objects.exists() and not DeliveryAttempt.objects.exists()

