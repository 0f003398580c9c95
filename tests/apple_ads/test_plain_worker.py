"""The worker exactly as the README starts it (no queue options), in a process of its own on
this test's database and the real Redis broker: an iOS install's token reaches the local
stand-in of Apple's API through it, and the install is re-attributed."""

from __future__ import annotations

import pytest

from apple_ads.models import Claim
from apple_ads.policy import State
from tests.apple_ads.helpers import ATTRIBUTED, TOKEN, apple, ios_install
from tests.delivery.helpers import wait_until
from tracking.models import Install

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_plain_worker_exchanges_the_token_and_reattributes_the_install(
        sdk, app, apple_api, readme_process, trusted_ca, settings):
    stand_in = apple_api(apple(404), apple(200, ATTRIBUTED))
    readme_process("worker", ready=" ready.", REQUESTS_CA_BUNDLE=trusted_ca,
                   APPLE_ADS_API_URL=settings.APPLE_ADS_API_URL)
    assert ios_install(sdk, app).status_code == 201
    # The 404 is retried by the countdown message after about 5 s, as Apple advises.
    [first, second] = stand_in.wait_for(2, timeout=30)
    assert first.body.decode() == TOKEN == second.body.decode()
    wait_until(lambda: Claim.objects.get().state == State.ATTRIBUTED, timeout=30)
    install = Install.objects.get()
    assert install.media_source == "apple_search_ads" and install.campaign_id == "542370539"
