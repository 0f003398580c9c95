"""TC string decoding (consent/tcf.py): the IAB Tech Lab's published example strings decode to
the fields its own reference decoder's tests assert (github.com/InteractiveAdvertisingBureau/
iabtcf-java, iabtcf-decoder/src/test/.../TCStringV2Test.java), TCF v2.2 and v2.3 strings give
their policy versions and Google's vendor consent, and anything else is refused with a reason."""

import pytest

from consent import tcf
from tests.consent.tc_strings import ALL_PURPOSES, GOOGLE, tc_string

# IAB Tech Lab, iabtcf-java TCStringV2Test.testCanConstructTCModelFromBase64String
IAB_FULL_EXAMPLE = "COtybn4PA_zT4KjACBENAPCIAEBAAECAAIAAAAAAAAAA"
# ... testConstructConsentsFromBitFields
IAB_BITFIELD_EXAMPLE = ("COrEAV4OrXx94ACABBENAHCIAD-AAAAAAACAAxAAAAgAIAwgAgAAAAEAgQAAAAAEAYQ"
                        "AQAAAACAAAABAAA")
# ... testCanParseDisclosedAndAllowedVendors (core, allowed and disclosed vendor segments)
IAB_WITH_SEGMENTS = IAB_BITFIELD_EXAMPLE + ".IBAgAAAgAIAwgAgAAAAEAAAACA.QAagAQAgAIAwgA"
# ... testRange: vendor consents as ranges (702-703)
IAB_RANGE_EXAMPLE = ("COwBOpCOwBOpCLqAAAENAPCAAAAAAAAAAAAAFfwAYFfAV-BVkAGBVYFWAAA.IFoEUQQgAIQ"
                     "wgIwQABAEAAAAOIAACAIAAAAQAIAgEAACEAAAAAgAQBAAAAAAAGBAAgAAAAAAAFAAECAAAgAA"
                     "QARAEQAAAAAJAAIAAgAAAYQEAAAQmAgBC3ZAYzUw")
# ... testPurposesConsent
IAB_PURPOSES_EXAMPLE = "COwxsONOwxsONKpAAAENAdCAAMAAAAAAAAAAAAAAAAAA"


def test_the_iab_full_example_decodes_to_its_published_fields():
    decoded = tcf.decode(IAB_FULL_EXAMPLE)
    assert decoded.version == 2
    assert decoded.cmp_id == 675
    assert decoded.cmp_version == 2
    assert decoded.vendor_list_version == 15
    assert decoded.policy_version == 2
    assert decoded.consent_language == "EN"
    assert decoded.publisher_cc == "AA"
    assert decoded.special_features_optin == (1,)
    assert decoded.purposes_consent == (2, 10)
    assert decoded.vendor_755 is False


def test_the_iab_bitfield_example_gives_its_purposes_and_no_google_consent():
    decoded = tcf.decode(IAB_BITFIELD_EXAMPLE)
    assert decoded.purposes_consent == (3, 4, 5, 6, 7, 8, 9)
    assert decoded.vendor_755 is False  # its consented vendors are 23, 37, 47, 48, 53, 65, 98


def test_optional_segments_after_the_core_are_accepted():
    assert tcf.decode(IAB_WITH_SEGMENTS).purposes_consent == (3, 4, 5, 6, 7, 8, 9)


def test_range_encoded_vendor_consent_is_read():
    decoded = tcf.decode(IAB_RANGE_EXAMPLE)
    assert decoded.vendor_755 is False  # the range is 702-703


def test_the_iab_purposes_example_consents_to_purposes_1_and_2():
    assert {1, 2} <= set(tcf.decode(IAB_PURPOSES_EXAMPLE).purposes_consent)


def test_a_tcf_v2_2_string_gives_policy_version_4_and_google_consent():
    decoded = tcf.decode(tc_string(purposes=ALL_PURPOSES, vendors=[1, GOOGLE],
                                   policy_version=4, cmp_id=300))
    assert decoded.policy_version == 4
    assert decoded.cmp_id == 300
    assert decoded.purposes_consent == tuple(ALL_PURPOSES)
    assert decoded.vendor_755 is True
    assert decoded.publisher_cc == "DE"


def test_a_tcf_v2_3_string_with_its_disclosed_vendors_segment_decodes():
    decoded = tcf.decode(tc_string(purposes=[1, 7], vendors=[GOOGLE], policy_version=5,
                                   disclosed=[1, GOOGLE]))
    assert decoded.policy_version == 5
    assert decoded.purposes_consent == (1, 7)
    assert decoded.vendor_755 is True


@pytest.mark.parametrize(("tcstring", "reason"), [
    ("", "empty"),
    ("not a tc string!", "base64url"),
    ("COtybn4PA_zT4Kj", "truncated"),  # the IAB example cut short
    ("BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA", "TCF v2"),  # a TCF v1.1 consent string
    ("abc", "TCF v2"),
    ("COtybn4PA..AAAA", "base64url"),
    ("A" * (tcf.MAX_LENGTH + 1), "At most"),
])
def test_what_is_not_a_usable_tc_string_is_refused_with_a_reason(tcstring, reason):
    with pytest.raises(tcf.TcfError, match=reason):
        tcf.decode(tcstring)


def test_the_private_attributes_the_truncation_check_reads_are_still_there():
    """consent/tcf.py, `read_past_the_end`, reads the library's bit reader. A new version that
    renames it must fail here, by name, not quietly accept truncated strings."""
    import importlib.metadata

    import iab_tcf

    version = importlib.metadata.version("iab-tcf-bitarray")
    decoded = iab_tcf.decode_v2(IAB_FULL_EXAMPLE)
    reader = getattr(decoded, "_reader", None)
    missing = [name for name in ("_pointer", "_consent") if not hasattr(reader, name)]
    assert reader is not None and not missing, (
        f"iab-tcf-bitarray {version} no longer has `_reader` with {missing or '_pointer, _consent'}"
        ": consent/tcf.py's read_past_the_end reads them (written for 0.2.3); rewrite it for this "
        "version before upgrading.")
    assert isinstance(reader._pointer, int) and len(reader._consent) >= reader._pointer, (
        f"iab-tcf-bitarray {version}: `_reader._pointer` is no longer a bit position within "
        "`_reader._consent`; consent/tcf.py's read_past_the_end must be rewritten for it.")
    assert not tcf.read_past_the_end(decoded)
