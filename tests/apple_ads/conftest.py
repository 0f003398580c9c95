"""Apple Ads fixtures: a local HTTPS stand-in for Apple's attribution API (a trustme CA the
client trusts through REQUESTS_CA_BUNDLE, as an operator would configure it), answering with
the bodies and statuses Apple documents, and an iOS app's SDK client reporting installs."""

from __future__ import annotations

import pytest

from tests.apple_ads.helpers import (
    app,  # noqa: F401 - a fixture
    apple,
    sdk,  # noqa: F401 - a fixture
)
from tests.delivery.helpers import (  # noqa: F401 - fixtures shared with delivery's tests
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    readme_process,
    receiver_factory,
    trusted_ca,
)
from tests.delivery.receivers import Reply


@pytest.fixture
def apple_api(receiver_factory, trusted_ca, settings):  # noqa: F811 - imported above
    """Start the stand-in with a script of answers; APPLE_ADS_API_URL points at it."""
    def start(*replies: Reply, default: Reply | None = None):
        stand_in = receiver_factory(*replies, tls=True, default=default or apple(500))
        settings.APPLE_ADS_API_URL = stand_in.url("/api/v1/")
        return stand_in
    return start


