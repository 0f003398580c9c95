"""Ad spend fixtures: the four networks' stand-ins on loopback HTTPS (a trustme CA the client
trusts through REQUESTS_CA_BUNDLE, as an operator would configure it) and a cost connection
per network."""

from __future__ import annotations

import pytest

from networks.spend import services
from networks.spend.connections import SPECS
from tests.delivery.helpers import (  # noqa: F401 - fixtures shared with delivery's tests
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    trusted_ca,
)
from tests.networks.spend.helpers import COSTS, stand_in  # noqa: F401 - fixture


@pytest.fixture
def connect(app):
    """Set up the app's cost connection with a network, as the API would store it."""
    def make(network: str, **overrides):
        spec = SPECS[network]
        values = {**COSTS[network], **overrides}
        account = {f.name: values[f.name].replace("-", "") if f.strip else values[f.name]
                   for f in spec.account if values.get(f.name)}
        secrets = {f.name: values.get(f.name) for f in spec.secrets}
        return services.connection_set(
            app_id=app.id, network=network, enabled=True, account=account, secrets=secrets,
            lookback_days=overrides.get("lookback_days", 7),
            campaign_ids=overrides.get("campaign_ids", []),
            campaign_name_contains=overrides.get("campaign_name_contains", ""))
    return make
