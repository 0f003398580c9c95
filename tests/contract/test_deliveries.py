"""The reference's postbacks and webhooks, received by real local receivers: macros filled,
methods kept, signatures over the payload, three retries with growing delays, every attempt
logged, and the test sends."""

import hashlib
import hmac
import json
import time
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.contract.helpers import (
    Caller,
    click,
    data,
    device,
    error,
    events,
    eventually,
    install,
    purchase,
)
from tests.delivery.receivers import Reply

MACROS = ("app_id={app_id}&device_id={device_id}&media_source={media_source}"
          "&campaign_id={campaign_id}&match_type={match_type}&install_time={install_time}"
          "&click_time={click_time}&confidence={confidence}")


def iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def attributed_install(owner, app, *, source="network_a", campaign="summer"):
    gaid = device()
    click(owner.caller, app.id, pid=source, c=campaign, advertising_id=gaid)
    time.sleep(1)
    return gaid, data(install(owner.caller, app, device_id=gaid), 201)


def test_an_attributed_install_calls_the_networks_postback_with_every_macro(
        service, owner, android, receiver):
    postback = data(owner.caller.post("postbacks", {
        "app_id": android.id, "media_source": "network_a",
        "postback_url": receiver.url("/pb?" + MACROS)}), 201)["postback"]
    assert (postback["http_method"], postback["active"]) == ("GET", True)
    data(owner.caller.post("postbacks", {"app_id": android.id, "media_source": "network_b",
                                         "postback_url": receiver.url("/other")}), 201)
    gaid, answer = attributed_install(owner, android)
    [request] = eventually(lambda: receiver.requests, service=service)
    assert request.method == "GET"
    query = {k: v[0] for k, v in parse_qs(urlsplit(request.path).query).items()}
    assert query["app_id"] == android.id and query["device_id"] == gaid
    assert (query["media_source"], query["campaign_id"], query["match_type"]) == (
        "network_a", "summer", "device_id")
    assert float(query["confidence"]) == answer["confidence"]
    assert iso(query["click_time"]) < iso(query["install_time"])
    assert abs(iso(query["click_time"]).timestamp() * 1000
               - answer["attributedTouchTime"]) < 1000
    [log] = eventually(lambda: data(owner.caller.get(
        "postbacks/logs", params={"app_id": android.id}), 200)["logs"], service=service)
    assert (log["attempt_number"], log["status_code"], log["success"]) == (1, 200, True)
    assert log["resolved_url"].startswith(receiver.url("/pb?app_id="))
    time.sleep(1)
    assert len(receiver.requests) == 1  # network_b's postback: not its install


def test_a_post_postback_posts_and_an_inactive_one_sends_nothing(service, owner, android,
                                                                 receiver_factory):
    posting, idle = receiver_factory(), receiver_factory()
    data(owner.caller.post("postbacks", {
        "app_id": android.id, "media_source": "network_a", "http_method": "POST",
        "postback_url": posting.url("/pb?d={device_id}")}), 201)
    off = data(owner.caller.post("postbacks", {
        "app_id": android.id, "media_source": "network_b",
        "postback_url": idle.url("/pb")}), 201)["postback"]
    assert data(owner.caller.put(f"postbacks/{off['id']}", {"active": False}),
                200)["postback"]["active"] is False
    gaid, _ = attributed_install(owner, android, source="network_a")
    attributed_install(owner, android, source="network_b")
    [request] = eventually(lambda: posting.requests, service=service)
    assert request.method == "POST" and request.path == f"/pb?d={gaid}"
    time.sleep(2)
    assert idle.requests == []


def test_postbacks_refuse_a_second_configuration_of_a_source_and_test_sends(owner, android,
                                                                         receiver):
    body = {"app_id": android.id, "media_source": "network_a",
            "postback_url": receiver.url("/pb?c={campaign_id}")}
    postback = data(owner.caller.post("postbacks", body), 201)["postback"]
    error(owner.caller.post("postbacks", body), 409, "CONFLICT")
    error(owner.caller.post("postbacks", {**body, "media_source": "x", "postback_url": ""}),
          400, "VALIDATION_ERROR")
    [listed] = data(owner.caller.get("postbacks", params={"app_id": android.id}),
                    200)["postbacks"]
    assert listed["id"] == postback["id"]
    data(owner.caller.post(f"postbacks/{postback['id']}/test"), 200)
    assert len(receiver.requests) == 1
    data(owner.caller.delete(f"postbacks/{postback['id']}"), 200)
    assert data(owner.caller.get("postbacks", params={"app_id": android.id}),
                200)["postbacks"] == []


def signed_by(secret: str, request) -> bool:
    digest = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(request.headers["X-Signature"], f"sha256={digest}")


def test_webhooks_are_https_signed_posts_of_installs_and_events(service, owner, android,
                                                              tls_receiver):
    error(owner.caller.post("webhooks", {"app_id": android.id, "events": ["install"],
                                         "url": "http://hooks.example.com/in"}),
          400, "VALIDATION_ERROR")
    created = data(owner.caller.post("webhooks", {
        "app_id": android.id, "url": tls_receiver.url("/hook"),
        "events": ["install", "event", "re-engagement"]}), 201)
    webhook, secret = created["webhook"], created["secret"]
    assert isinstance(created["message"], str) and secret
    assert (webhook["active"], webhook["events"]) == (True, ["install", "event", "re-engagement"])
    assert "secret" not in data(owner.caller.get("webhooks", params={"app_id": android.id}),
                                200)["webhooks"][0]
    gaid, _ = attributed_install(owner, android)
    data(events(owner.caller, android, gaid, purchase(4.99)), 200)
    received = eventually(lambda: len(tls_receiver.requests) >= 2 and tls_receiver.requests,
                          service=service)
    bodies = {}
    for request in received:
        assert request.method == "POST" and signed_by(secret, request)
        body = json.loads(request.body)
        assert isinstance(body["timestamp"], int)
        bodies[body["event_type"]] = body["data"]
    assert {"app_id": android.id, "device_id": gaid, "platform": "android",
            "media_source": "network_a", "campaign_id": "summer", "match_type": "device_id",
            "is_organic": False}.items() <= bodies["install"].items()
    assert 95 <= bodies["install"]["confidence"] <= 100
    assert {"app_id": android.id, "device_id": gaid, "event_name": "purchase"}.items() <= \
        bodies["event"].items()
    assert bodies["event"]["properties"] == {"amount": 4.99, "currency": "USD"}


def test_a_failing_webhook_is_retried_three_times_with_growing_delays_and_all_logged(
        service, owner, android, receiver_factory, trusted_ca):
    failing = receiver_factory(tls=True, default=Reply(status=500, body=b"down"))
    data(owner.caller.post("webhooks", {"app_id": android.id, "url": failing.url("/hook"),
                                        "events": ["install"]}), 201)
    attributed_install(owner, android)
    requests = eventually(lambda: len(failing.requests) >= 4 and failing.requests,
                          timeout=90, service=service)
    gaps = [later.at - earlier.at for earlier, later in zip(requests, requests[1:],
                                                             strict=False)]
    assert gaps[0] < gaps[1] < gaps[2], gaps  # exponential backoff (1, 2, 4 s here)
    logs = eventually(lambda: (lambda logs: len(logs) == 4 and logs[0]["delivery_state"]
                               == "failed" and logs)(data(owner.caller.get(
                                   "webhooks/logs", params={"app_id": android.id}),
                                   200)["logs"]), service=service)
    assert sorted(log["attempt_number"] for log in logs) == [1, 2, 3, 4]
    assert {log["status_code"] for log in logs} == {500}
    assert all(log["response_body"] == "down" and log["error_message"] for log in logs)
    time.sleep(5)
    assert len(failing.requests) == 4


def test_a_webhook_that_recovers_is_delivered_by_its_retry(service, owner, android,
                                                           receiver_factory, trusted_ca):
    flaky = receiver_factory(Reply(status=503), tls=True)
    data(owner.caller.post("webhooks", {"app_id": android.id, "url": flaky.url("/hook"),
                                        "events": ["install"]}), 201)
    attributed_install(owner, android)
    eventually(lambda: len(flaky.requests) >= 2, service=service)
    logs = eventually(lambda: (lambda logs: logs and logs[0]["delivery_state"] == "succeeded"
                               and logs)(data(owner.caller.get(
                                   "webhooks/logs", params={"app_id": android.id}),
                                   200)["logs"]), service=service)
    assert [(log["attempt_number"], log["status_code"]) for log in logs] == [(2, 200),
                                                                             (1, 503)]


@pytest.mark.parametrize("events_", [[], ["installs"], ["install", "purchase"]])
def test_a_webhook_with_bad_events_is_a_400_naming_them(owner, android, events_):
    answer = owner.caller.post("webhooks", {"app_id": android.id, "events": events_,
                                            "url": "https://hooks.example.com/in"})
    assert "events" in error(answer, 400, "VALIDATION_ERROR")["details"]


def test_the_webhook_test_send_is_signed_and_logged(service, owner, android, tls_receiver):
    created = data(owner.caller.post("webhooks", {
        "app_id": android.id, "url": tls_receiver.url("/hook"), "events": ["install"]}), 201)
    answer = data(owner.caller.post(f"webhooks/{created['webhook']['id']}/test"), 200)
    assert answer["delivered"] is True
    [request] = tls_receiver.requests
    assert signed_by(created["secret"], request)
    assert json.loads(request.body)["event_type"] == "install"
    assert data(Caller(service).get("webhooks/logs", params={"app_id": android.id},
                                    token=owner.caller.token), 200)["logs"]
