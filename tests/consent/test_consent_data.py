"""`consent_data` (consent/consent_data.py): both AppsFlyer shapes become a consent, and every
bad input is refused naming its field by its dotted path. Pure."""

import pytest

from consent.consent_data import Consent, ConsentDataError, parse, public
from tests.consent.tc_strings import ALL_PURPOSES, GOOGLE, tc_string

GRANTED_STRING = tc_string(purposes=ALL_PURPOSES, vendors=[GOOGLE])
DENIED_STRING = tc_string(purposes=[2, 3, 4], vendors=[GOOGLE])


def test_manual_consent_is_taken_as_sent():
    consent = parse({"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                                "ad_personalization_enabled": True}})
    assert consent == Consent(gdpr_applies=True, ad_user_data=False, ad_personalization=True,
                              source="manual")


def test_manual_consent_outside_the_gdpr_needs_no_flags():
    consent = parse({"manual": {"gdpr_applies": False}})
    assert (consent.ad_user_data, consent.ad_personalization) == (True, True)


def test_a_tcf_consent_is_decoded_and_mapped():
    consent = parse({"tcf": {"tcstring": DENIED_STRING, "gdpr_applies": 1, "policy_version": 4,
                             "cmp_sdk_id": 300, "cmp_sdk_version": 2}})
    assert consent.source == "tcf"
    assert consent.gdpr_applies is True
    assert consent.ad_user_data is False  # purposes 1 and 7 refused
    assert consent.ad_personalization is True
    assert consent.tcf.purposes_consent == (2, 3, 4)
    assert consent.tcf.vendor_755 is True
    assert consent.tcf.cmp_id == 300 and consent.tcf.policy_version == 4
    assert public(consent) == {
        "gdpr_applies": True, "ad_user_data": False, "ad_personalization": True,
        "source": "tcf", "sharing_filter": None,
        "tcf": {"policy_version": 4, "cmp_id": 300, "purposes_consent": [2, 3, 4],
                "vendor_755": True}}


def test_gdpr_applying_without_a_tc_string_denies_both():
    consent = parse({"tcf": {"gdpr_applies": 1}})
    assert (consent.ad_user_data, consent.ad_personalization, consent.tcf) == (
        False, False, None)


def test_the_sharing_filter_is_accepted_with_either_shape():
    assert parse({"manual": {"gdpr_applies": False}, "sharing_filter": "all"}
                 ).sharing_filter == "all"
    assert parse({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 1},
                  "sharing_filter": "all"}).sharing_filter == "all"
    assert parse({"manual": {"gdpr_applies": False}, "sharing_filter": None}
                 ).sharing_filter == ""


@pytest.mark.parametrize(("raw", "field"), [
    ("yes", "consent_data"),
    ([], "consent_data"),
    ({}, "consent_data"),
    ({"manual": None, "tcf": None}, "consent_data"),
    ({"manual": {"gdpr_applies": False}, "tcf": {"gdpr_applies": 0}}, "consent_data"),
    ({"manual": {"gdpr_applies": False}, "extra": 1}, "consent_data.extra"),
    ({"manual": {"gdpr_applies": False}, "sharing_filter": "some"},
     "consent_data.sharing_filter"),
    ({"manual": {"gdpr_applies": False}, "sharing_filter": ["all"]},
     "consent_data.sharing_filter"),
    ({"manual": "granted"}, "consent_data.manual"),
    ({"manual": {}}, "consent_data.manual.gdpr_applies"),
    ({"manual": {"gdpr_applies": "true"}}, "consent_data.manual.gdpr_applies"),
    ({"manual": {"gdpr_applies": 1}}, "consent_data.manual.gdpr_applies"),
    ({"manual": {"gdpr_applies": True, "ad_personalization_enabled": True}},
     "consent_data.manual.ad_user_data_enabled"),
    ({"manual": {"gdpr_applies": True, "ad_user_data_enabled": True}},
     "consent_data.manual.ad_personalization_enabled"),
    ({"manual": {"gdpr_applies": True, "ad_user_data_enabled": 0,
                 "ad_personalization_enabled": True}},
     "consent_data.manual.ad_user_data_enabled"),
    ({"manual": {"gdpr_applies": False, "consent": True}}, "consent_data.manual.consent"),
    ({"tcf": [GRANTED_STRING]}, "consent_data.tcf"),
    ({"tcf": {"tcstring": GRANTED_STRING}}, "consent_data.tcf.gdpr_applies"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": True}},
     "consent_data.tcf.gdpr_applies"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 2}}, "consent_data.tcf.gdpr_applies"),
    ({"tcf": {"tcstring": 42, "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ({"tcf": {"tcstring": "", "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ({"tcf": {"tcstring": "COtybn4PA_zT4Kj", "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ({"tcf": {"tcstring": "not-a-string!", "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 1, "policy_version": "4"}},
     "consent_data.tcf.policy_version"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 1, "cmp_sdk_id": -1}},
     "consent_data.tcf.cmp_sdk_id"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 1, "cmp_sdk_version": 1.5}},
     "consent_data.tcf.cmp_sdk_version"),
    ({"tcf": {"tcstring": GRANTED_STRING, "gdpr_applies": 1, "cmp_id": 3}},
     "consent_data.tcf.cmp_id"),
])
def test_bad_consent_data_names_its_field(raw, field):
    with pytest.raises(ConsentDataError) as refused:
        parse(raw)
    assert refused.value.field == field
    assert refused.value.message


def test_the_prefix_names_where_the_consent_data_was():
    with pytest.raises(ConsentDataError) as refused:
        parse({"tcf": {"gdpr_applies": 3}}, prefix="events[2].consent_data")
    assert refused.value.field == "events[2].consent_data.tcf.gdpr_applies"
