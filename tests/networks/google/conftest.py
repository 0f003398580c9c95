"""Google Ads fixtures: a local HTTPS stand-in for Google's App Conversion Tracking and
Remarketing API (a trustme CA the client trusts through REQUESTS_CA_BUNDLE, as an operator
would configure it), answering with the JSON Google's request/response specification shows, an
app with a Google Ads integration, and an SDK client reporting installs."""

from __future__ import annotations

import pytest

from networks import services as integrations_services
from tests.delivery.helpers import (  # noqa: F401 - fixtures shared with delivery's tests
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    readme_process,
    receiver_factory,
    trusted_ca,
)
from tests.networks.google.helpers import (
    LINK_ID,
    google_api,  # noqa: F401 - a fixture
    sdk,  # noqa: F401 - a fixture
)


@pytest.fixture
def google_app(app):
    integrations_services.google_ads_integration_set(
        app_id=app.id, link_id=LINK_ID, event_mapping={"purchase": "in_app_purchase",
                                                       "level_up": "level_achieved"})
    return app


