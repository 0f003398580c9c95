"""Apple's attribution API is called through the one outbound client (outbox.http): an address
on a private network is refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS allows it (a refusal is
retried like an outage), the address checked is the one connected to, and the certificate must
name the host."""

from __future__ import annotations

import pytest

from apple_ads.models import Claim
from apple_ads.policy import State
from outbox.http import LOCAL_DESTINATIONS_HINT
from tests.apple_ads.helpers import ATTRIBUTED, apple, ios_install
from tests.apple_ads.test_exchange import exchange_due
from tests.outbound import PUBLIC, Network

pytestmark = pytest.mark.django_db

NAME = "api-adservices.apple.example"


def test_apple_on_a_private_address_is_refused_without_the_setting_and_called_with_it(
        sdk, app, apple_api, settings):
    stand_in = apple_api(apple(200, ATTRIBUTED))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    ios_install(sdk, app)

    refused = exchange_due()

    assert refused.status_code is None and refused.reading == "unavailable"
    assert refused.error_message == (
        f"Could not reach Apple: Refused: 127.0.0.1 is a loopback address. "
        f"{LOCAL_DESTINATIONS_HINT}")
    assert "OUTBOUND_ALLOW_PRIVATE_NETWORKS=1" in refused.error_message
    assert stand_in.requests == []
    assert Claim.objects.get().state == State.PENDING  # retried, as the setting may change

    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    allowed = exchange_due()

    assert allowed.status_code == 200 and len(stand_in.requests) == 1
    assert Claim.objects.get().state == State.ATTRIBUTED


def test_apple_answering_public_then_private_is_never_reached(
        sdk, app, apple_api, settings, monkeypatch):
    stand_in = apple_api(apple(200, ATTRIBUTED))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    settings.APPLE_ADS_API_URL = stand_in.url("/api/v1/", host=NAME)
    ios_install(sdk, app)
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})

    attempt = exchange_due()

    assert attempt.error_message == "Could not reach Apple: Connection refused."
    assert network.lookups == [NAME]
    assert network.connected == [(PUBLIC, stand_in.port)]
    assert stand_in.requests == []


def test_apple_with_a_certificate_for_another_name_is_refused(
        sdk, app, apple_api, settings, monkeypatch):
    stand_in = apple_api(apple(200, ATTRIBUTED))  # its certificate names 127.0.0.1, localhost
    settings.APPLE_ADS_API_URL = stand_in.url("/api/v1/", host=NAME)
    ios_install(sdk, app)
    Network(monkeypatch, {NAME: ["127.0.0.1"]})

    attempt = exchange_due()

    assert attempt.error_message.startswith(
        "Could not reach Apple: TLS certificate not accepted: Hostname mismatch")
    assert stand_in.requests == []
