"""Outbound safety: user-supplied URLs cannot reach loopback, private, link-local, carrier-grade
NAT, multicast or reserved addresses, neither at save time nor at send time, whatever the
spelling, and macro values cannot move a postback to another host."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from delivery.models import Delivery, DeliveryAttempt, State
from tests.delivery.helpers import (
    attempt_all,
    install_event,
    make_postback,
    make_webhook,
    publish,
)
from tests.outbound import PUBLIC, Network

pytestmark = pytest.mark.django_db

# Addresses that must be refused (docs/delivery.md, "Outbound safety (SSRF)"), each host as it
# is written in a URL.
ADDRESS_TABLE = ["127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "[::1]",
                 "[::ffff:127.0.0.1]", "0x7f000001", "2130706433"]


@pytest.fixture
def address_checks_on(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False


@pytest.mark.parametrize("host", ADDRESS_TABLE + ["localhost", "0177.0.0.1", "[fe80::1]",
                                                  "192.168.0.10", "[::ffff:a9fe:a9fe]"])
def test_postback_destinations_that_are_not_public_are_refused_at_save(
        owner_api, app, address_checks_on, host):
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": f"http://{host}:8080/pb?d={{device_id}}"}, format="json")
    assert response.status_code == 400
    [message] = response.json()["error"]["details"]["postback_url"]
    assert message.startswith("Refused: ")
    assert not app.postback_configs.exists()


@pytest.mark.parametrize("host", ADDRESS_TABLE)
def test_webhook_destinations_that_are_not_public_are_refused_at_save(
        owner_api, app, address_checks_on, host):
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": f"https://{host}/hook", "events": ["install"]},
        format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["url"][0].startswith("Refused: ")


def test_the_metadata_address_is_named_in_the_refusal(owner_api, app, address_checks_on):
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": "https://169.254.169.254/latest/meta-data/",
        "events": ["install"]}, format="json")
    assert response.json()["error"]["details"]["url"] == [
        "Refused: 169.254.169.254 is a link-local address (cloud metadata lives there). To allow "
        "destinations on your own machine or network, set OUTBOUND_ALLOW_PRIVATE_NETWORKS=1 (on "
        "by default with DEBUG=1, as `make run` runs); keep it off in production."]


def test_updating_to_a_private_destination_is_refused(owner_api, app, address_checks_on):
    postback = make_postback(app, "https://network.example/pb")
    response = owner_api.put(f"/api/v1/postbacks/{postback.id}",
                             {"postback_url": "http://10.0.0.1/pb"}, format="json")
    assert response.status_code == 400
    postback.refresh_from_db()
    assert postback.postback_url == "https://network.example/pb"


def test_a_name_that_does_not_resolve_yet_is_accepted_at_save(owner_api, app,
                                                              address_checks_on):
    # This machine has no outside DNS; the send-time check still guards the call.
    response = owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": "https://hooks.not-resolvable.invalid/h",
        "events": ["install"]}, format="json")
    assert response.status_code == 201


@pytest.mark.parametrize("host", ADDRESS_TABLE + ["localhost"])
def test_the_same_addresses_are_refused_at_send(app, receiver, settings, host):
    """Configurations saved while the check was off (or names that changed their answer since)
    are refused again right before the call; the local receiver never hears of it."""
    make_postback(app, f"http://{host}:{receiver.port}/pb")
    publish(install_event(app))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    [attempt] = attempt_all()
    assert attempt.succeeded is False and attempt.status_code is None
    assert attempt.error_message.startswith("Refused: ")
    assert receiver.requests == []
    # Refusal is permanent: no retries are scheduled against a forbidden address.
    delivery = Delivery.objects.get()
    assert delivery.state == State.FAILED and delivery.attempts_made == 1


def test_webhooks_are_refused_at_send_too(app, tls_receiver, settings):
    make_webhook(app, tls_receiver.url("/hook"))
    publish(install_event(app))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    [attempt] = attempt_all()
    assert attempt.error_message == "Refused: 127.0.0.1 is a loopback address."
    assert tls_receiver.requests == []


@pytest.mark.parametrize("device_id", [
    "evil.example", "@169.254.169.254", "x@evil.example:80/", "/../../admin#",
    "?target=http://10.0.0.1", "%2F%2Fevil.example", "a b\r\nHost: evil.example",
])
def test_macro_values_cannot_change_the_host(app, receiver, device_id):
    make_postback(app, receiver.url("/pb/{device_id}?d={device_id}&c={campaign_id}"))
    publish(install_event(app, device_id=device_id, campaign_id="@127.0.0.2:1/"))
    [attempt] = attempt_all()
    [request] = receiver.requests  # it arrived here, on the configured host and port
    assert request.headers["Host"] == f"127.0.0.1:{receiver.port}"
    query = parse_qs(urlsplit(request.path).query)
    assert query == {"d": [device_id], "c": ["@127.0.0.2:1/"]}
    assert urlsplit(attempt.url).netloc == f"127.0.0.1:{receiver.port}"


def test_macros_in_the_host_are_refused_at_save(owner_api, app):
    for url in ("https://{media_source}.example/pb", "https://n.example:{confidence}/",
                "https://{device_id}@n.example/"):
        response = owner_api.post("/api/v1/postbacks", {
            "app_id": str(app.id), "media_source": "network_a", "postback_url": url},
            format="json")
        assert response.status_code == 400, url
        assert "host" in response.json()["error"]["details"]["postback_url"][0]


def test_credentials_in_a_url_are_sent_as_basic_auth_and_masked_in_the_log(app, receiver):
    make_postback(app, receiver.url("/pb?api_key=s3cret&d={device_id}").replace(
        "http://", "http://partner:pa%40ss@"))
    publish(install_event(app))
    [attempt] = attempt_all()
    [request] = receiver.requests
    import base64

    assert request.headers["Authorization"] == "Basic " + base64.b64encode(
        b"partner:pa@ss").decode()
    assert "s3cret" not in attempt.url and "pa%40ss" not in attempt.url
    assert attempt.url == f"http://***@127.0.0.1:{receiver.port}/pb?api_key=***&d=gaid-1234"
    assert "s3cret" not in json.dumps(list(DeliveryAttempt.objects.values()), default=str)


def test_a_postback_host_answering_public_then_private_is_never_reached(
        app, receiver, settings, monkeypatch):
    """The address checked is the address connected to: a second answer of the name (DNS
    rebinding to the receiver on loopback) is never asked for."""
    make_postback(app, receiver.url("/pb?d={device_id}", host="network.example"))
    publish(install_event(app))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    network = Network(monkeypatch, {"network.example": [PUBLIC, "127.0.0.1"]})
    [attempt] = attempt_all()
    assert attempt.error_message == "Connection refused." and attempt.status_code is None
    assert network.lookups == ["network.example"]
    assert network.connected == [(PUBLIC, receiver.port)]
    assert receiver.requests == []


def test_a_webhook_receiver_with_a_certificate_for_another_name_is_refused(
        app, tls_receiver, monkeypatch):
    # The receiver's certificate names 127.0.0.1 and localhost, not the webhook's host.
    make_webhook(app, tls_receiver.url("/hook", host="hooks.example"))
    publish(install_event(app))
    network = Network(monkeypatch, {"hooks.example": ["127.0.0.1"]})
    [attempt] = attempt_all()
    assert attempt.error_message.startswith("TLS certificate not accepted: Hostname mismatch")
    assert network.addresses_connected() == {"127.0.0.1"}
    assert tls_receiver.requests == []
