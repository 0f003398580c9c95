"""Trying webhooks and postbacks on one's own machine: under DEBUG (`make run`) a plain-http
receiver on loopback is accepted and reached; in production (DEBUG off, the default) it is
refused, and the refusal says how to allow it (OUTBOUND_ALLOW_PRIVATE_NETWORKS, whose two
earlier names are still read)."""

import os
import subprocess
import sys

import pytest

from outbox.http import LOCAL_DESTINATIONS_HINT

pytestmark = pytest.mark.django_db


NAMES = ("OUTBOUND_ALLOW_PRIVATE_NETWORKS", "DELIVERY_ALLOW_PRIVATE_NETWORKS",
         "RAW_EXPORT_ALLOW_PRIVATE_ENDPOINTS")


@pytest.mark.parametrize(("debug", "given", "expected"), [
    ("1", {}, "True"),
    ("0", {}, "False"),
    ("0", {"OUTBOUND_ALLOW_PRIVATE_NETWORKS": "1"}, "True"),
    ("1", {"OUTBOUND_ALLOW_PRIVATE_NETWORKS": "0"}, "False"),
    # The earlier names: either one on allows, even with the new one off...
    ("0", {"DELIVERY_ALLOW_PRIVATE_NETWORKS": "1"}, "True"),
    ("0", {"RAW_EXPORT_ALLOW_PRIVATE_ENDPOINTS": "1"}, "True"),
    ("0", {"OUTBOUND_ALLOW_PRIVATE_NETWORKS": "0", "DELIVERY_ALLOW_PRIVATE_NETWORKS": "1"},
     "True"),
    # ...and one set to 0 under DEBUG keeps refusing, as it did before the new name.
    ("1", {"DELIVERY_ALLOW_PRIVATE_NETWORKS": "0"}, "False"),
])
def test_local_receivers_follow_debug_unless_set(debug, given, expected):
    env = {key: value for key, value in os.environ.items() if key not in NAMES}
    env.update(given, DEBUG=debug)
    printed = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                               "print(settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS)"],
        env={**env, "DJANGO_SETTINGS_MODULE": "attribution_site.settings"},
        capture_output=True, text=True, check=True).stdout.strip()
    assert printed == expected


def test_a_plain_http_loopback_webhook_is_accepted_and_reached_when_allowed(
        owner_api, app, receiver, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    created = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": receiver.url("/hook"), "events": ["install"]},
        format="json")
    assert created.status_code == 201, created.json()
    assert receiver.url("/hook").startswith("http://127.0.0.1:")
    sent = owner_api.post(f"/api/v1/webhooks/{created.json()['data']['webhook']['id']}/test")
    assert sent.json()["data"]["delivered"] is True
    assert [request.path for request in receiver.requests] == ["/hook"]


def test_in_production_a_plain_http_webhook_is_refused_with_the_way_to_allow_it(
        owner_api, app, receiver, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": receiver.url("/hook"), "events": ["install"]},
        format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["url"] == [
        f"Must be an absolute https URL. {LOCAL_DESTINATIONS_HINT}"]


def test_in_production_a_loopback_postback_is_refused_with_the_way_to_allow_it(
        owner_api, app, receiver, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": receiver.url("/pb?d={device_id}")}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["postback_url"] == [
        f"Refused: 127.0.0.1 is a loopback address. {LOCAL_DESTINATIONS_HINT}"]
