"""Meta's install referrer: Meta's published example decrypts to its campaign, and nothing
that is not exactly Meta's data under the app's key is read. Pure: no database."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from networks.meta import referrer as meta_referrer
from networks.meta.referrer import Ciphertext, MetaCampaign, Unreadable

# "Understand Facebook App Ads Referral URLs" (developers.facebook.com/docs/app-ads/
# install-referrer): the example key (the page prints a stray "M" after its 64 hex
# characters), the example referrer's data and nonce.
EXAMPLE_KEY = bytes.fromhex("2575590594a9cd809e5bfacf397f8c1ac730dbc38a3e137ecd1ab66591c8c3c9")
EXAMPLE_DATA = (
    "afe56cf6228c6ea8c79da49186e718e92a579824596ae1d0d4d20d7793dca797bd4034ccf467bfae5c79a398"
    "1e7a2968c41949237e2b2db678c1c3d39c9ae564c5cafd52f2b77a3dc77bf1bae063114d0283b97417487207"
    "735da31ddc1531d5645a9c3e602c195a0ebf69c272aa5fda3a2d781cb47e117310164715a54c7a5a03274058"
    "4e2789a7b4e596034c16425139a77e507c492b629c848573c714a03a2e7d25b9459b95842332b460f3682d19"
    "c35dbc7d53e3a51e0497ff6a6cbb367e760debc4194ae097498108df7b95eac2fa9bac4320077b510be3b7b8"
    "23248bfe02ae501d9fe4ba179c7de6733c92bf89d523df9e31238ef497b9db719484cbab7531dbf6c5ea5a80"
    "87f95d59f5e4f89050e0f1dc03e464168ad76a64cca64b79")
EXAMPLE_NONCE = "b7203c6a6fb633d16e9cf5c1"
# What the example decrypts to: the campaign metadata fields Meta's page lists, with the ids
# other measurement partners' documentation shows for it (campaign group 654321).
EXAMPLE_CAMPAIGN = {
    "ad_id": "12345", "ad_objective_name": "APP_INSTALLS", "adgroup_id": "54321",
    "adgroup_name": "Adams Test Ad Group", "campaign_id": "987654",
    "campaign_name": "Adams Test Campaign", "campaign_group_id": "654321",
    "campaign_group_name": "Adams Test Campaign Group", "account_id": "444444"}


def read(referrer: str | None, key: bytes | None):
    found = meta_referrer.find(referrer)
    if found is None or isinstance(found, Unreadable):
        return found
    return meta_referrer.decrypt(found, key)


def play_referrer(data: str = EXAMPLE_DATA, nonce: str = EXAMPLE_NONCE) -> str:
    """The Play install referrer as Meta builds it: utm_content is JSON holding `source`."""
    content = json.dumps({"app": 1234567890, "t": 1700000000,
                          "source": {"data": data, "nonce": nonce}})
    return urlencode({"utm_source": "apps.facebook.com", "utm_campaign": "fb4a",
                      "utm_content": content})


def test_metas_example_decrypts_to_the_documented_campaign():
    campaign = read(play_referrer(), EXAMPLE_KEY)
    assert campaign == MetaCampaign(fields=EXAMPLE_CAMPAIGN)
    assert (campaign.campaign_id, campaign.adset, campaign.ad) == ("654321", "987654", "54321")
    assert campaign.campaign_name == "Adams Test Campaign Group"


def test_one_changed_byte_of_the_data_does_not_decrypt():
    for position in (0, len(EXAMPLE_DATA) // 2, len(EXAMPLE_DATA) - 2):
        flipped = format(int(EXAMPLE_DATA[position:position + 2], 16) ^ 0x01, "02x")
        tampered = EXAMPLE_DATA[:position] + flipped + EXAMPLE_DATA[position + 2:]
        result = read(play_referrer(data=tampered), EXAMPLE_KEY)
        assert isinstance(result, Unreadable)
        assert "did not decrypt" in result.reason


def test_one_changed_byte_of_the_nonce_does_not_decrypt():
    nonce = "b6" + EXAMPLE_NONCE[2:]
    assert isinstance(read(play_referrer(nonce=nonce), EXAMPLE_KEY), Unreadable)


def test_the_wrong_key_does_not_decrypt():
    wrong = bytes([EXAMPLE_KEY[0] ^ 0x80]) + EXAMPLE_KEY[1:]
    result = read(play_referrer(), wrong)
    assert result == Unreadable("Meta's data did not decrypt with the app's key (a wrong key, "
                                "or the data was altered or cut)")


def test_truncated_data_does_not_decrypt():
    assert isinstance(read(play_referrer(data=EXAMPLE_DATA[:-2]), EXAMPLE_KEY),
                      Unreadable)
    assert read(play_referrer(data=EXAMPLE_DATA[:20]), EXAMPLE_KEY) == Unreadable(
        "Meta's data is truncated")


def test_a_referrer_without_metas_data_is_not_metas():
    assert meta_referrer.find(None) is None
    assert meta_referrer.find("") is None
    assert meta_referrer.find("utm_source=google-play&utm_medium=organic") is None
    assert meta_referrer.find("pid=network&c=spring&utm_content=banner") is None
    assert meta_referrer.find("utm_content=%7B%22other%22%3A1%7D") is None


def test_metas_data_without_a_key_is_unreadable():
    assert read(play_referrer(), None) == Unreadable(
        "the app has no Meta decryption key")


def test_malformed_metas_data_says_why():
    assert read(play_referrer(data="zz"), EXAMPLE_KEY) == Unreadable(
        "Meta's data or nonce is not hex")
    assert read(play_referrer(nonce="abcd"), EXAMPLE_KEY) == Unreadable(
        "Meta's nonce is not 12 bytes")
    content = json.dumps({"source": {"data": EXAMPLE_DATA}})
    assert meta_referrer.find(urlencode({"utm_content": content})) == Unreadable(
        "Meta's data has no data or nonce")
    assert meta_referrer.find(play_referrer(data="ab" * 5000)) == Unreadable(
        "Meta's data is too long")


def test_a_referrer_encoded_once_more_is_still_read():
    assert read(quote(play_referrer(), safe=""), EXAMPLE_KEY) == MetaCampaign(
        fields=EXAMPLE_CAMPAIGN)


def test_metas_own_install_referrer_json_is_read():
    content = {"source": {"data": EXAMPLE_DATA, "nonce": EXAMPLE_NONCE}}
    as_object = json.dumps({"utm_source": "apps.facebook.com", "utm_content": content})
    as_string = json.dumps({"utm_content": json.dumps(content)})
    for referrer in (as_object, as_string, json.dumps(content)):
        assert read(referrer, EXAMPLE_KEY) == MetaCampaign(fields=EXAMPLE_CAMPAIGN)


def encrypted(plain: bytes, key: bytes = EXAMPLE_KEY) -> Ciphertext:
    nonce = bytes(range(12))
    return Ciphertext(data=AESGCM(key).encrypt(nonce, plain, None), nonce=nonce)


def test_decrypted_data_that_is_not_a_campaign_is_unreadable():
    assert meta_referrer.decrypt(encrypted(b"not json"), EXAMPLE_KEY) == Unreadable(
        "Meta's decrypted data is not JSON")
    assert meta_referrer.decrypt(encrypted(b"[1, 2]"), EXAMPLE_KEY) == Unreadable(
        "Meta's decrypted data is not a JSON object")
    assert meta_referrer.decrypt(encrypted(b'{"ad_id": "1"}'), EXAMPLE_KEY) == Unreadable(
        "Meta's decrypted data names no campaign group")


def test_only_known_fields_are_kept_as_bounded_text():
    plain = json.dumps({"campaign_group_id": 42, "campaign_name": "x" * 300,
                        "injected": "<script>", "ad_id": {"nested": 1}}).encode()
    campaign = meta_referrer.decrypt(encrypted(plain), EXAMPLE_KEY)
    assert campaign.fields == {"campaign_group_id": "42", "campaign_name": "x" * 255}
