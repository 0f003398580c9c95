"""Networks fixtures: an SDK client, and an app set up with Meta's example key."""

import pytest
from rest_framework.test import APIClient

from networks import services
from tests.networks.meta.test_referrer import EXAMPLE_KEY


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


@pytest.fixture
def meta_app(app):
    services.meta_integration_set(app_id=app.id, meta_app_id="1234567890",
                                  decryption_key=EXAMPLE_KEY.hex())
    return app
