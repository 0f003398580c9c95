"""Which facts each platform hears of, and what is frozen of them: pure, no database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

from networks.conversion import GOOGLE_ADS, META, Account, Conversion, conversion_of, platform_event

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
GOOGLE = Account(GOOGLE_ADS, "LINK-0001", None, {"purchase": "in_app_purchase"})
METAS = Account(META, "42", "token", {"purchase": "fb_mobile_purchase"})


def event(**fields):
    values = {"app_id": uuid.uuid4(), "install_id": uuid.uuid4(), "device_id": "gaid-1",
              "event_name": "purchase", "occurred_at": NOW, "installed_at": NOW,
              "revenue_amount": Decimal("4.990"), "revenue_currency": "EUR", "event_id": 1}
    return SimpleNamespace(**{**values, **fields})


def test_only_mapped_events_have_a_platform_name():
    assert platform_event({"purchase": "in_app_purchase"}, "purchase") == "in_app_purchase"
    assert platform_event({"purchase": "in_app_purchase"}, "level_up") is None


def test_a_new_install_goes_to_meta_only():
    install = event()
    assert conversion_of(install, GOOGLE, new_installs=True) is None
    conversion = conversion_of(install, METAS, new_installs=True)
    assert (conversion.platform_event, conversion.event_name, conversion.value) == (
        "MOBILE_APP_INSTALL", None, None)


def test_a_mapped_event_goes_with_its_value_and_currency():
    conversion = conversion_of(event(), GOOGLE, new_installs=False)
    assert (conversion.platform_event, conversion.value, conversion.currency) == (
        "in_app_purchase", "4.99", "EUR")


def test_google_hears_nothing_of_an_event_without_an_advertising_id():
    assert conversion_of(event(device_id=None), GOOGLE, new_installs=False) is None
    assert conversion_of(event(device_id=None), METAS, new_installs=False) is not None


def test_an_event_of_no_known_install_or_not_mapped_goes_nowhere():
    assert conversion_of(event(install_id=None), METAS, new_installs=False) is None
    assert conversion_of(event(event_name="level_up"), METAS, new_installs=False) is None


def test_the_consent_is_frozen_in_googles_terms_and_the_body_reads_back():
    consent = SimpleNamespace(gdpr_applies=True, ad_user_data=True, ad_personalization=False)
    conversion = conversion_of(event(), GOOGLE, new_installs=False).with_consent(consent)
    assert conversion.consent == {"eea": True, "ad_user_data": True,
                                  "ad_personalization": False}
    assert Conversion.from_body(conversion.body()) == conversion
    assert conversion_of(event(), GOOGLE, new_installs=False).with_consent(None).consent is None
