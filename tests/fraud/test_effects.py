"""What a verdict does to deliveries and events (docs/fraud.md, "What a verdict does"): no
postback to a refused network unless it asks for rejected installs, the verdict in webhooks,
blocked installs' events marked and kept out of postbacks."""

import json
import time

import pytest

from delivery.models import Delivery, Kind, PostbackConfig
from tests.delivery.helpers import make_webhook
from tests.fraud.helpers import click, install
from tracking.models import Event

pytestmark = pytest.mark.django_db


def postback(app, source, *, send_rejected=False, events=("install",)):
    return PostbackConfig.objects.create(
        app=app, media_source=source,
        postback_url=f"https://{source}.invalid/pb?r={{is_rejected}}",
        events=list(events), send_rejected=send_rejected)


def postback_bodies(config):
    return [json.loads(d.body) for d in Delivery.objects.filter(postback=config)]


def webhook_data(event_type="install"):
    return [json.loads(d.body)["data"] for d in Delivery.objects.filter(
        kind=Kind.WEBHOOK, event_type=event_type)]


def test_a_refused_network_gets_a_rejected_install_postback_only_when_it_asks(
        sdk, app, timing_rules_block):
    honest = postback(app, "honest_network")
    hijacker = postback(app, "hijacker", send_rejected=True)
    silent = postback(app, "other_hijacker")
    make_webhook(app, "https://hooks.invalid/h")
    click(app, seconds_ago=3600, source="honest_network")
    click(app, seconds_ago=2, source="hijacker")
    install(sdk, app)
    [credited] = postback_bodies(honest)
    assert (credited["media_source"], credited["is_rejected"], credited["reject_reason"]) == (
        "honest_network", 0, None)
    [rejected] = postback_bodies(hijacker)
    assert rejected["is_rejected"] == 1
    assert rejected["reject_reason"] == "ctit_anomalies"
    assert 2 <= rejected["reject_reason_value"] < 10
    assert (rejected["media_source"], rejected["campaign_id"], rejected["match_type"]) == (
        "hijacker", "summer", None)
    assert postback_bodies(silent) == []
    [data] = webhook_data()
    assert data["fraud"]["status"] == "flagged"
    assert data["fraud"]["reasons"][0]["reason"] == "ctit_anomalies"


def test_a_blocked_install_sends_no_postback_but_its_webhook_says_why(
        sdk, app, timing_rules_block):
    refused = postback(app, "network_a")
    make_webhook(app, "https://hooks.invalid/h")
    click(app, seconds_ago=3)
    install(sdk, app)
    assert postback_bodies(refused) == []
    [data] = webhook_data()
    assert (data["is_organic"], data["media_source"], data["fraud"]["status"]) == (
        True, None, "blocked")


def test_a_blocked_installs_events_are_stored_marked_and_sent_no_postback(
        sdk, app, timing_rules_block):
    config = postback(app, "network_a", events=("install", "event"))
    make_webhook(app, "https://hooks.invalid/h")
    click(app, seconds_ago=3)
    install(sdk, app)
    response = sdk.post("/api/v1/events", {
        "app_id": str(app.id), "device_id": "gaid-1", "sdk_version": "6.0.0",
        "events": [{"event_name": "purchase", "timestamp": int(time.time() * 1000) - 1000,
                    "session_id": "0f8e7d6c-5b4a-4398-8776-655443322110",
                    "properties": {"revenue": 9.99, "currency": "USD"}}]}, format="json")
    assert response.status_code == 200
    event = Event.objects.get()
    assert event.is_blocked is True
    assert postback_bodies(config) == []
    [data] = webhook_data("event")
    assert data["is_blocked"] is True


def test_a_clean_installs_events_are_not_marked(sdk, app):
    click(app, seconds_ago=600)
    install(sdk, app)
    sdk.post("/api/v1/events", {
        "app_id": str(app.id), "device_id": "gaid-1", "sdk_version": "6.0.0",
        "events": [{"event_name": "level_up", "timestamp": int(time.time() * 1000) - 1000,
                    "session_id": "0f8e7d6c-5b4a-4398-8776-655443322110",
                    "properties": {"level": 2}}]}, format="json")
    assert Event.objects.get().is_blocked is False


def test_a_postback_configuration_takes_send_rejected(owner_api, app):
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_b", "send_rejected": True,
        "postback_url": "https://n.invalid/pb?r={is_rejected}&why={reject_reason}"
                        "&v={reject_reason_value}"}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["data"]["postback"]["send_rejected"] is True
    bad = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_c", "send_rejected": "yes",
        "postback_url": "https://n.invalid/pb"}, format="json")
    assert bad.status_code == 400 and "send_rejected" in bad.json()["error"]["details"]
