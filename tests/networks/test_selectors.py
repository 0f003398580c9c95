"""The integrations' selectors: secrets come back decrypted, stored encrypted, and every write
reaches the per-process cache."""

from __future__ import annotations

import pytest

from networks import selectors, services
from networks.models import GoogleAdsConfig, MetaConfig
from tests.factories import AppFactory
from tests.helpers import served_from_memory

KEY = "0123456789abcdef" * 4
pytestmark = pytest.mark.django_db(transaction=True)


def test_meta_of_returns_the_decrypted_key_and_token():
    app = AppFactory(platform="android")
    services.meta_integration_set(app_id=app.id, meta_app_id="1234567890", decryption_key=KEY,
                                  access_token="EAAB-token-9876",
                                  event_mapping={"purchase": "fb_mobile_purchase"})
    meta = selectors.meta_of(app.id)
    assert meta == selectors.MetaIntegration(
        meta_app_id="1234567890", decryption_key=bytes.fromhex(KEY),
        access_token="EAAB-token-9876", event_mapping={"purchase": "fb_mobile_purchase"},
        view_window_hours=24)
    row = MetaConfig.objects.get(app=app)
    assert KEY not in row.decryption_key_encrypted
    assert "EAAB-token" not in row.access_token_encrypted
    assert (row.decryption_key_last4, row.access_token_last4) == ("cdef", "9876")


def test_google_ads_of_returns_the_decrypted_link_id():
    app = AppFactory(platform="android")
    assert selectors.google_ads_of(app.id) is None
    services.google_ads_integration_set(app_id=app.id, link_id="ABCDEF0123456789",
                                        event_mapping={"purchase": "in_app_purchase"})
    assert selectors.google_ads_of(app.id) == selectors.GoogleAdsIntegration(
        link_id="ABCDEF0123456789", event_mapping={"purchase": "in_app_purchase"})
    assert "ABCDEF0123456789" not in GoogleAdsConfig.objects.get(app=app).link_id_encrypted


def test_every_write_reaches_the_cache():
    app = AppFactory(platform="android")
    assert selectors.meta_of(app.id) is None
    services.meta_integration_set(app_id=app.id, meta_app_id="1", decryption_key=KEY)
    assert selectors.meta_of(app.id).meta_app_id == "1"
    services.meta_integration_set(app_id=app.id, meta_app_id="2", decryption_key=KEY)
    assert selectors.meta_of(app.id).meta_app_id == "2"
    assert selectors.meta_of(app.id).access_token is None
    assert services.integration_delete(app_id=app.id, kind="meta") is True
    assert selectors.meta_of(app.id) is None
    assert services.integration_delete(app_id=app.id, kind="meta") is False


@pytest.mark.redis
def test_an_app_without_integrations_costs_no_query_once_cached(live_local_caches):
    app = AppFactory(platform="android")
    selectors.meta_of(app.id)
    assert served_from_memory(lambda: selectors.meta_of(app.id))
    assert served_from_memory(lambda: selectors.google_ads_of(app.id))
