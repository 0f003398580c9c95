"""Fraud fixtures; the helpers other folders import (stored clicks, installs) are in helpers.py."""


import pytest

from fraud import services as fraud_services
from fraud import verdict
from tests.fraud.helpers import (
    sdk,  # noqa: F401 - a fixture
)


@pytest.fixture
def timing_rules_block(app):
    """The owner has switched the two timing rules from their default (flag: credited and
    flagged, as the spec attributes a click then its install a second later) to block."""
    fraud_services.settings_update(app_id=app.id, changes={
        "ctit_anomalies_mode": verdict.BLOCK, "too_many_engagements_mode": verdict.BLOCK})


