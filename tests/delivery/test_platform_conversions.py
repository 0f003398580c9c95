# ruff: noqa: F811 - the Google stand-in fixtures are imported from tests/networks/google
"""Conversions sent back to Google Ads and Meta (docs/networks.md, "Sending conversions"): each
mapped event, and Meta's install, reaches a local HTTPS stand-in of the platform's API exactly
once, in the platform's format; nothing goes for a user whose consent says no; a platform that
is down is retried; the attempts are in the postback log under `platform`."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from delivery import services
from delivery.models import Delivery, DeliveryAttempt, State
from networks import services as integrations_services
from outbox.http import LOCAL_DESTINATIONS_HINT
from tests.delivery.receivers import Reply
from tests.networks.google.helpers import (  # noqa: F401 - fixtures shared with networks' Google tests
    DEV_TOKEN,
    GAID,
    LINK_ID,
    android_install,
    google_api,
    sdk,
)
from tests.outbound import PUBLIC, Network

pytestmark = pytest.mark.django_db

META_APP_ID = "1234567890"
META_TOKEN = "EAAB-meta-access-token-9f3c"
META_KEY = "a" * 64
SESSION = "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"


@pytest.fixture
def platforms_app(app):
    integrations_services.google_ads_integration_set(
        app_id=app.id, link_id=LINK_ID,
        event_mapping={"purchase": "in_app_purchase", "level_up": "level_achieved"})
    integrations_services.meta_integration_set(
        app_id=app.id, meta_app_id=META_APP_ID, decryption_key=META_KEY,
        access_token=META_TOKEN, event_mapping={"purchase": "fb_mobile_purchase"})
    return app


@pytest.fixture
def meta_api(receiver_factory, trusted_ca, settings):
    def start(*replies: Reply, default: Reply | None = None):
        stand_in = receiver_factory(*replies, tls=True, default=default or Reply(
            200, b'{"success": true}', headers={"Content-Type": "application/json"}))
        settings.META_GRAPH_API_URL = stand_in.url("/").rstrip("/")
        return stand_in
    return start


def google_ok() -> Reply:
    return Reply(200, json.dumps({"ad_events": [], "errors": [], "attributed": False}).encode(),
                 headers={"Content-Type": "application/json"})


def send_all() -> list[DeliveryAttempt]:
    """What the workers do: every platform delivery that is due, once."""
    Delivery.objects.filter(state=State.PENDING).update(next_attempt_at=timezone.now())
    attempts = []
    for delivery_id in Delivery.objects.filter(
            state=State.PENDING, kind__in=["google_ads", "meta"]).values_list("id", flat=True):
        attempt = services.delivery_attempt(delivery_id=delivery_id)
        if attempt is not None:
            attempts.append(attempt)
    return attempts


def events(sdk, app, *names_and_props, **fields):
    body = {"app_id": str(app.id), "sdk_version": "3.1.0", "device_id": GAID, "events": [
        {"event_name": name, "properties": props, "timestamp": int(time.time() * 1000),
         "event_id": f"ev-{n}", "session_id": SESSION}
        for n, (name, props) in enumerate(names_and_props)]}
    body.update(fields)
    return sdk.post("/api/v1/events", body, format="json")


def test_every_configured_conversion_reaches_each_platform_exactly_once(
        sdk, platforms_app, google_api, meta_api):
    google = google_api(default=google_ok())
    meta = meta_api()
    android_install(sdk, platforms_app)
    response = events(sdk, platforms_app, ("purchase", {"amount": 4.99, "currency": "EUR"}),
                      ("level_up", {"level": 3}), ("opened_settings", {}))
    assert response.json()["data"]["accepted"] == 3

    send_all()
    send_all()  # a second pass finds nothing left to send

    google_paths = [r for r in google.requests
                    if urlsplit(r.path).path == "/pagead/conversion/app/1.0"]
    queries = sorted(({k: v[0] for k, v in parse_qs(urlsplit(r.path).query).items()}
                      for r in google_paths), key=lambda q: q["app_event_type"])
    # Google hears the mapped events; the install is the claim's first_open (google_ads).
    assert [(q["app_event_type"], q.get("app_event_name")) for q in queries] == [
        ("custom", "level_achieved"), ("in_app_purchase", None)]
    purchase = queries[1]
    assert (purchase["value"], purchase["currency_code"]) == ("4.99", "EUR")
    assert purchase["dev_token"] == DEV_TOKEN and purchase["link_id"] == LINK_ID
    assert purchase["rdid"] == GAID and purchase["id_type"] == "advertisingid"

    bodies = [json.loads(r.body) for r in meta.requests]
    assert all(urlsplit(r.path).path == f"/v21.0/{META_APP_ID}/activities"
               for r in meta.requests)
    assert sorted(b["event"] for b in bodies) == ["CUSTOM_APP_EVENTS", "MOBILE_APP_INSTALL"]
    [custom] = [b for b in bodies if b["event"] == "CUSTOM_APP_EVENTS"]
    assert custom["custom_events"][0]["_eventName"] == "fb_mobile_purchase"
    assert custom["custom_events"][0]["_valueToSum"] == 4.99
    assert custom["custom_events"][0]["fb_currency"] == "EUR"
    assert custom["advertiser_id"] == GAID and custom["access_token"] == META_TOKEN
    assert all(d.state == State.SUCCEEDED for d in Delivery.objects.filter(
        kind__in=["google_ads", "meta"]))


def test_no_conversion_goes_for_a_user_who_refused_consent(
        sdk, platforms_app, google_api, meta_api):
    google = google_api(default=google_ok())
    meta = meta_api()
    refused = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                          "ad_personalization_enabled": False}}
    android_install(sdk, platforms_app, consent_data=refused)
    events(sdk, platforms_app, ("purchase", {"amount": 4.99, "currency": "EUR"}))

    send_all()

    assert meta.requests == []
    assert [r for r in google.requests if "cross_network" not in r.path] == []
    skipped = Delivery.objects.filter(kind__in=["google_ads", "meta"])
    assert skipped.count() == 3
    assert {d.state for d in skipped} == {State.SKIPPED}
    assert all("ad_user_data is denied" in d.consent_note for d in skipped)


def test_a_platform_that_is_down_is_retried_and_nothing_is_lost(
        sdk, platforms_app, google_api, meta_api):
    google_api(default=google_ok())
    meta = meta_api(Reply(503, b"unavailable"))
    android_install(sdk, platforms_app)

    [first] = [a for a in send_all() if a.kind == "meta"]
    delivery = Delivery.objects.get(kind="meta")
    assert first.succeeded is False and delivery.state == State.PENDING

    [second] = [a for a in send_all() if a.kind == "meta"]
    assert second.succeeded is True and second.number == 2
    assert len(meta.requests) == 2


def test_a_platform_refusing_the_request_is_not_retried(
        sdk, platforms_app, google_api, meta_api):
    google_api(default=google_ok())
    meta_api(Reply(400, b'{"error": {"message": "Invalid OAuth access token."}}'))
    android_install(sdk, platforms_app)

    send_all()

    assert Delivery.objects.get(kind="meta").state == State.FAILED


def test_the_postback_log_lists_a_platforms_attempts(
        sdk, owner_api, platforms_app, google_api, meta_api):
    google_api(default=google_ok())
    meta_api()
    android_install(sdk, platforms_app)
    send_all()

    response = owner_api.get("/api/v1/postbacks/logs",
                             {"app_id": str(platforms_app.id), "platform": "meta"})

    assert response.status_code == 200
    [entry] = response.json()["data"]["logs"]
    assert entry["event_type"] == "install" and entry["success"] is True
    assert entry["resolved_url"].endswith(f"/v21.0/{META_APP_ID}/activities")
    plain = owner_api.get("/api/v1/postbacks/logs", {"app_id": str(platforms_app.id)})
    assert plain.json()["data"]["logs"] == []


@pytest.mark.parametrize("params, field", [
    ({"platform": "tiktok"}, "platform"),
    ({"platform": "meta", "postback_id": "3f2a2b0e-8c1f-4c55-9d35-1f7e0f1a2b3c"}, "platform"),
])
def test_a_bad_platform_filter_is_a_400_naming_it(owner_api, app, params, field):
    response = owner_api.get("/api/v1/postbacks/logs", {"app_id": str(app.id), **params})
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_a_platform_on_a_private_address_is_refused_without_the_setting_and_reached_with_it(
        sdk, platforms_app, google_api, meta_api, settings):
    google_api(default=google_ok())
    meta = meta_api()
    android_install(sdk, platforms_app)
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False

    [refused] = [a for a in send_all() if a.kind == "meta"]

    assert refused.succeeded is False and refused.status_code is None
    assert refused.error_message == (
        f"Could not reach Meta: Refused: 127.0.0.1 is a loopback address. "
        f"{LOCAL_DESTINATIONS_HINT}")
    assert meta.requests == []
    assert Delivery.objects.get(kind="meta").state == State.PENDING  # retried, like an outage

    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    [allowed] = [a for a in send_all() if a.kind == "meta"]

    assert allowed.succeeded is True and len(meta.requests) == 1


def test_a_platform_answering_public_then_private_is_never_reached(
        sdk, platforms_app, google_api, meta_api, settings, monkeypatch):
    google_api(default=google_ok())
    meta = meta_api()
    settings.META_GRAPH_API_URL = meta.url("", host="graph.facebook.example")
    android_install(sdk, platforms_app)
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    network = Network(monkeypatch, {"graph.facebook.example": [PUBLIC, "127.0.0.1"]})

    [attempt] = [a for a in send_all() if a.kind == "meta"]

    assert attempt.error_message == "Could not reach Meta: Connection refused."
    assert network.lookups == ["graph.facebook.example"]
    assert network.connected == [(PUBLIC, meta.port)]
    assert meta.requests == []
