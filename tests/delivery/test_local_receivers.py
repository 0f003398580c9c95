"""Trying webhooks and postbacks on one's own machine: under DEBUG (`make run`) a plain-http
receiver on loopback is accepted and reached; in production (DEBUG off, the default) it is
refused, and the refusal says how to allow it (OUTBOUND_ALLOW_PRIVATE_NETWORKS, whose two
earlier names are still read). A plain-http webhook to a public address is refused in every
configuration, at save and at send."""

import os
import subprocess
import sys

import pytest

from delivery.models import Delivery, State, Webhook
from outbox.http import LOCAL_DESTINATIONS_HINT
from tests.delivery.helpers import attempt_all, install_event, make_webhook, publish

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


# Plain http is for one's own machine or network only: a public address is refused whatever
# OUTBOUND_ALLOW_PRIVATE_NETWORKS says (docs/delivery.md, "Outbound safety (SSRF)").
PUBLIC_HTTP = "http://93.184.216.34/hook"
PUBLIC_REFUSAL = ("Refused: 93.184.216.34, a public address; plain http is only for a receiver "
                  "on loopback or a private network. Use an https URL.")


@pytest.mark.parametrize(("allowed", "message"), [
    (True, PUBLIC_REFUSAL), (False, "Must be an absolute https URL.")])
def test_a_public_plain_http_webhook_is_refused_in_every_configuration(
        owner_api, app, settings, allowed, message):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = allowed
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": PUBLIC_HTTP, "events": ["install"]}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["message"]) == ("VALIDATION_ERROR", "Invalid input: url.")
    assert error["details"] == {"url": [message]}
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("allowed", [True, False])
def test_updating_a_webhook_to_public_plain_http_is_refused(owner_api, app, settings, allowed):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = allowed
    webhook, _ = make_webhook(app, "https://hooks.example/in")
    response = owner_api.put(f"/api/v1/webhooks/{webhook.id}", {"url": PUBLIC_HTTP},
                             format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["url"]
    webhook.refresh_from_db()
    assert webhook.url == "https://hooks.example/in"


@pytest.mark.parametrize("url", ["http://10.1.2.3:8080/hook", "http://[::1]:9000/hook",
                                 "http://localhost:9000/hook", "http://192.168.1.20/hook"])
def test_a_plain_http_webhook_to_a_private_address_is_accepted_where_allowed(
        owner_api, app, settings, url):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": url, "events": ["install"]}, format="json")
    assert response.status_code == 201, response.json()
    assert Webhook.objects.get().url == url


def test_a_plain_http_webhook_whose_name_does_not_resolve_is_refused(owner_api, app, settings):
    # Plain http is the exception, so it must be shown to stay local; https names that do not
    # resolve yet are still accepted (the send-time check guards them).
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": "http://hooks.not-resolvable.invalid/h",
        "events": ["install"]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["url"] == [
        "Refused: hooks.not-resolvable.invalid does not resolve now, so it cannot be checked "
        "to be on loopback or a private network, the only places plain http may go. Use an "
        "https URL, or an IP address."]
    assert not Webhook.objects.exists()


def test_a_public_plain_http_webhook_saved_earlier_is_refused_at_send(app, settings):
    """A row written before this rule (or by a shell) is refused before any connection."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    make_webhook(app, "http://93.184.216.34:9/hook")
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.succeeded is False and attempt.status_code is None
    assert attempt.error_message == PUBLIC_REFUSAL
    delivery = Delivery.objects.get()
    assert delivery.state == State.FAILED and delivery.attempts_made == 1


def test_a_plain_http_postback_to_a_public_address_stays_accepted(owner_api, app, settings):
    # Ad networks' postback endpoints are often plain http; only webhooks are https by spec.
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": "http://93.184.216.34/pb?d={device_id}"}, format="json")
    assert response.status_code == 201
