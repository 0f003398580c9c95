"""The worker exactly as the README starts it (no queue options), in a process of its own on
this test's database and the real Redis broker: an install of an app with a Google Ads
integration reaches the local stand-in of Google's API through it, Google's claim re-attributes
the install within seconds, and the cross-network answer follows once."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from networks.google.policy import State
from networks.models import GoogleClaim
from tests.delivery.helpers import wait_until
from tests.networks.google.helpers import DEV_TOKEN, android_install, google
from tracking.models import Install

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_plain_worker_claims_the_install_for_google_and_answers_once(
        sdk, google_app, google_api, readme_process, trusted_ca, settings):
    stand_in = google_api(google(200), google(200, {}))
    readme_process("worker", ready=" ready.", REQUESTS_CA_BUNDLE=trusted_ca,
                   GOOGLE_ADS_API_URL=settings.GOOGLE_ADS_API_URL,
                   GOOGLE_ADS_DEVELOPER_TOKEN=DEV_TOKEN)
    assert android_install(sdk, google_app).status_code == 201

    [first, second] = stand_in.wait_for(2, timeout=30)

    assert urlsplit(first.path).path == "/pagead/conversion/app/1.0"
    assert urlsplit(second.path).path == "/pagead/conversion/app/1.0/cross_network"
    wait_until(lambda: GoogleClaim.objects.get().state == State.ATTRIBUTED, timeout=30)
    install = Install.objects.get()
    assert install.media_source == "google" and install.campaign_id == "123456789"
    assert GoogleClaim.objects.get().cross_network == "sent"
