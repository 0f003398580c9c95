"""Delivery logs (newest first, bounded, filterable, credentials masked) and the test
endpoints that send at once and report the outcome."""

import hashlib
import hmac
import json

import pytest
from standardwebhooks import Webhook as StandardWebhook

from delivery.models import Delivery, DeliveryAttempt
from tests.delivery.helpers import attempt_all, install_event, make_postback, publish
from tests.delivery.receivers import Reply

pytestmark = pytest.mark.django_db

LOG_FIELDS = {"id", "delivery_id", "postback_id", "event_type", "install_id", "event_id",
              "is_test", "attempt_number",
              "http_method", "resolved_url", "status_code", "response_body", "error_message",
              "success", "duration_ms", "queued_at", "started_at", "finished_at", "delivery_state",
              "next_attempt_at", "consent_note"}


def test_postback_logs_list_attempts_newest_first_with_documented_fields(owner_api, app,
                                                                         receiver_factory):
    failing = receiver_factory(Reply(status=500, body=b"<b>busy</b>"))
    postback = make_postback(app, failing.url("/pb?token=abc&d={device_id}"))
    publish(install_event(app), install_event(app))
    attempt_all()
    response = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}")
    assert response.status_code == 200
    logs = response.json()["data"]["logs"]
    assert len(logs) == 2
    assert set(logs[0]) == LOG_FIELDS
    assert logs[0]["started_at"] >= logs[1]["started_at"]
    failed = next(entry for entry in logs if entry["status_code"] == 500)
    assert failed["success"] is False and failed["error_message"] == "Receiver answered 500."
    assert failed["response_body"] == "<b>busy</b>"
    assert failed["resolved_url"] == failing.url("/pb?token=***&d=gaid-1234")
    assert failed["postback_id"] == str(postback.id) and failed["attempt_number"] == 1
    assert failed["delivery_state"] == "pending" and failed["next_attempt_at"] is not None
    assert failed["is_test"] is False and failed["event_type"] == "install"
    assert failed["http_method"] == "GET" and failed["duration_ms"] >= 0
    ok = next(entry for entry in logs if entry["status_code"] == 200)
    assert ok["success"] is True and ok["error_message"] is None
    assert ok["delivery_state"] == "succeeded" and ok["next_attempt_at"] is None


def test_logs_are_bounded_and_filterable(owner_api, app, receiver):
    first = make_postback(app, receiver.url("/a"), media_source="network_a")
    make_postback(app, receiver.url("/b"), media_source="network_b")
    publish(*[install_event(app, media_source="network_a") for _ in range(3)],
            *[install_event(app, media_source="network_b") for _ in range(2)])
    attempt_all()
    base = f"/api/v1/postbacks/logs?app_id={app.id}"
    assert len(owner_api.get(base).json()["data"]["logs"]) == 5
    assert len(owner_api.get(f"{base}&limit=2").json()["data"]["logs"]) == 2
    assert len(owner_api.get(f"{base}&limit=500").json()["data"]["logs"]) == 5
    only_first = owner_api.get(f"{base}&postback_id={first.id}").json()["data"]["logs"]
    assert {entry["postback_id"] for entry in only_first} == {str(first.id)}
    assert len(only_first) == 3


@pytest.mark.parametrize("query,field", [
    ("limit=501", "limit"), ("limit=0", "limit"), ("limit=ten", "limit"),
    ("limit=-3", "limit"), ("postback_id=nope", "postback_id"),
])
def test_bad_log_queries_are_400(owner_api, app, query, field):
    response = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&{query}")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_log_filters_name_only_the_apps_own_configurations(owner_api, owner, app, receiver):
    from tests.factories import AppFactory

    other_app = AppFactory(organization=owner.organization)
    other = make_postback(other_app, receiver.url("/x"))
    response = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&postback_id={other.id}")
    assert response.status_code == 404
    assert owner_api.get("/api/v1/postbacks/logs").status_code == 400


def test_the_postback_test_endpoint_sends_sample_data_and_reports_the_outcome(
        owner_api, app, receiver):
    postback = make_postback(app, receiver.url("/pb?d={device_id}&src={media_source}"
                                               "&c={campaign_id}"), active=False)
    response = owner_api.post(f"/api/v1/postbacks/{postback.id}/test")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["delivered"] is True
    log = data["log"]
    assert log["status_code"] == 200 and log["response_body"] == "ok"
    assert log["is_test"] is True and log["error_message"] is None
    assert log["duration_ms"] >= 0 and log["attempt_number"] == 1
    [request] = receiver.requests
    assert "src=network_a" in request.path and "c=sample_campaign" in request.path
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert [entry["is_test"] for entry in logs] == [True]
    assert Delivery.objects.get().is_test


def test_a_failing_test_reports_the_error_and_is_not_retried(owner_api, app, receiver_factory):
    failing = receiver_factory(default=Reply(status=503, body=b"maintenance"))
    postback = make_postback(app, failing.url("/pb"))
    data = owner_api.post(f"/api/v1/postbacks/{postback.id}/test").json()["data"]
    assert data["delivered"] is False
    assert data["log"]["status_code"] == 503
    assert data["log"]["error_message"] == "Receiver answered 503."
    assert data["log"]["response_body"] == "maintenance"
    assert data["log"]["delivery_state"] == "failed"
    assert DeliveryAttempt.objects.count() == 1


def test_the_webhook_test_endpoint_sends_a_signed_sample(owner_api, app, tls_receiver):
    created = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": tls_receiver.url("/hook"), "events": ["install"]},
        format="json").json()["data"]
    response = owner_api.post(f"/api/v1/webhooks/{created['webhook']['id']}/test")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["delivered"] is True and data["log"]["webhook_id"] == created["webhook"]["id"]
    [request] = tls_receiver.requests
    secret = created["secret"]
    assert request.headers["X-Signature"] == "sha256=" + hmac.new(
        secret.encode(), request.body, hashlib.sha256).hexdigest()
    body = StandardWebhook(secret).verify(request.body, request.headers)
    assert body["test"] is True and body["event_type"] == "install"
    assert body["data"]["app_id"] == str(app.id)
    logs = owner_api.get(f"/api/v1/webhooks/logs?app_id={app.id}").json()["data"]["logs"]
    assert len(logs) == 1 and logs[0]["is_test"] is True
    assert json.loads(request.body)["id"] == logs[0]["delivery_id"]


def test_webhook_logs_filter_by_webhook(owner_api, app, tls_receiver):
    ids = []
    for _ in range(2):
        ids.append(owner_api.post("/api/v1/webhooks", {
            "app_id": str(app.id), "url": tls_receiver.url("/hook"), "events": ["install"]},
            format="json").json()["data"]["webhook"]["id"])
    publish(install_event(app))
    attempt_all()
    base = f"/api/v1/webhooks/logs?app_id={app.id}"
    assert len(owner_api.get(base).json()["data"]["logs"]) == 2
    filtered = owner_api.get(f"{base}&webhook_id={ids[0]}&limit=1").json()["data"]["logs"]
    assert [entry["webhook_id"] for entry in filtered] == [ids[0]]
    assert owner_api.get(f"{base}&limit=501").status_code == 400
