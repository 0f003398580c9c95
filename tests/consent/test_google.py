"""Google's signals from a TCF consent (consent/google.py), as Google maps the TCF purposes
(developers.google.com/tag-platform/security/guides/implement-TCF-strings), and from the app's
own consent screen. Pure, a table."""

import pytest

from consent.google import GoogleSignals, from_manual, from_tcf

ALL = set(range(1, 12))
GRANTED = GoogleSignals(ad_user_data=True, ad_personalization=True)
DENIED = GoogleSignals(ad_user_data=False, ad_personalization=False)


@pytest.mark.parametrize(("gdpr_applies", "purposes", "vendor_755", "expected"), [
    (True, ALL, True, GRANTED),
    (True, ALL - {1}, True, GoogleSignals(ad_user_data=False, ad_personalization=True)),
    (True, ALL - {7}, True, GoogleSignals(ad_user_data=False, ad_personalization=True)),
    (True, ALL - {3}, True, GoogleSignals(ad_user_data=True, ad_personalization=False)),
    (True, ALL - {4}, True, GoogleSignals(ad_user_data=True, ad_personalization=False)),
    (True, ALL - {1, 3}, True, DENIED),
    (True, {1, 7}, True, GoogleSignals(ad_user_data=True, ad_personalization=False)),
    (True, {3, 4}, True, GoogleSignals(ad_user_data=False, ad_personalization=True)),
    (True, ALL - {2, 5, 6, 8, 9, 10, 11}, True, GRANTED),  # only 1, 3, 4, 7 matter
    (True, set(), True, DENIED),
    (True, ALL, False, DENIED),  # Google (vendor 755) without consent
    (True, None, None, DENIED),  # GDPR applies and the CMP gave no string
    (False, None, None, GRANTED),  # outside the GDPR
    (False, set(), False, GRANTED),  # outside the GDPR, whatever the string says
])
def test_tcf_to_google(gdpr_applies, purposes, vendor_755, expected):
    assert from_tcf(gdpr_applies=gdpr_applies, purposes_consent=purposes,
                    vendor_755=vendor_755) == expected


@pytest.mark.parametrize(("gdpr_applies", "ad_user_data", "ad_personalization", "expected"), [
    (True, True, True, GRANTED),
    (True, False, True, GoogleSignals(ad_user_data=False, ad_personalization=True)),
    (True, True, False, GoogleSignals(ad_user_data=True, ad_personalization=False)),
    (True, False, False, DENIED),
    (False, None, None, GRANTED),  # outside the GDPR, flags not sent
    (False, False, None, GoogleSignals(ad_user_data=False, ad_personalization=True)),
])
def test_manual_to_google(gdpr_applies, ad_user_data, ad_personalization, expected):
    assert from_manual(gdpr_applies=gdpr_applies, ad_user_data_enabled=ad_user_data,
                       ad_personalization_enabled=ad_personalization) == expected
