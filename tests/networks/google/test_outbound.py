"""Google's App Conversion API is called through the one outbound client (outbox.http): an
address on a private network is refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS allows it (a
refusal is retried like an outage), and the address checked is the one connected to."""

from __future__ import annotations

import pytest

from networks.models import GoogleClaim
from outbox.http import LOCAL_DESTINATIONS_HINT
from tests.networks.google.helpers import android_install, google
from tests.networks.google.test_claims import send_due
from tests.outbound import PUBLIC, Network

pytestmark = pytest.mark.django_db

NAME = "www.googleadservices.example"


def test_google_on_a_private_address_is_refused_without_the_setting_and_called_with_it(
        sdk, google_app, google_api, settings):
    stand_in = google_api(google(200))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    android_install(sdk, google_app)

    refused = send_due()

    assert refused.reading == "unavailable" and refused.status_code is None
    assert refused.error_message == (
        f"Could not reach Google: Refused: 127.0.0.1 is a loopback address. "
        f"{LOCAL_DESTINATIONS_HINT}")
    assert stand_in.requests == []
    assert GoogleClaim.objects.get().state == "pending"

    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    allowed = send_due()

    assert allowed.reading == "attributed" and len(stand_in.requests) == 1


def test_google_answering_public_then_private_is_never_reached(
        sdk, google_app, google_api, settings, monkeypatch):
    stand_in = google_api(google(200))
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    settings.GOOGLE_ADS_API_URL = stand_in.url("", host=NAME)
    android_install(sdk, google_app)
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})

    attempt = send_due()

    assert attempt.error_message == "Could not reach Google: Connection refused."
    assert network.lookups == [NAME]
    assert network.connected == [(PUBLIC, stand_in.port)]
    assert stand_in.requests == []
