"""An app's ad network credentials at rest (attribution_site/secrets.py): ones stored by the
code before purposes still decrypt, and ones that no longer decrypt leave the integration
unused (as if not set up) instead of failing the installs that ask for it."""

from __future__ import annotations

import pytest

from networks import selectors, services
from networks.models import GoogleAdsConfig, MetaConfig
from tests.factories import AppFactory
from tests.legacy_secrets import FOREIGN_KEY, legacy_token
from tests.networks.meta.test_referrer import play_referrer
from tests.tracking.helpers import ANDROID_SDK, PUBLIC_IP, install_body
from tracking.models import Install

KEY = "0123456789abcdef" * 4
pytestmark = pytest.mark.django_db


def set_up_then_reseal(app, token_of) -> None:
    services.meta_integration_set(app_id=app.id, meta_app_id="1234567890", decryption_key=KEY,
                                  access_token="EAAB-token-9876")
    services.google_ads_integration_set(app_id=app.id, link_id="ABCDEF0123456789")
    meta = MetaConfig.objects.get(app=app)
    meta.decryption_key_encrypted = token_of(KEY)
    meta.access_token_encrypted = token_of("EAAB-token-9876")
    meta.save()  # row by row, so the cached copy is dropped
    google = GoogleAdsConfig.objects.get(app=app)
    google.link_id_encrypted = token_of("ABCDEF0123456789")
    google.save()


def test_credentials_stored_before_purposes_still_decrypt():
    app = AppFactory(platform="android")
    set_up_then_reseal(app, legacy_token)
    meta = selectors.meta_of(app.id)
    assert (meta.decryption_key, meta.access_token) == (bytes.fromhex(KEY), "EAAB-token-9876")
    assert selectors.google_ads_of(app.id).link_id == "ABCDEF0123456789"


def test_credentials_that_no_longer_decrypt_leave_the_integration_unused():
    app = AppFactory(platform="android")
    set_up_then_reseal(app, lambda secret: legacy_token(secret, key=FOREIGN_KEY))
    assert selectors.meta_of(app.id) is None
    assert selectors.google_ads_of(app.id) is None


def test_an_install_with_metas_referrer_is_answered_when_the_key_no_longer_decrypts(sdk, app):
    set_up_then_reseal(app, lambda secret: legacy_token(secret, key=FOREIGN_KEY))
    response = sdk.post("/api/v1/installs", install_body(app, install_referrer=play_referrer()),
                        format="json", HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["matchType"] == "organic"
    steps = [s["outcome"] for s in Install.objects.get(id=data["installId"]).decision["steps"]]
    assert "Meta install referrer not used: the app has no Meta decryption key" in steps
