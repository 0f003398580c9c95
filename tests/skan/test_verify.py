"""The recombination orders and signature checks of skan/verify.py: pure, no database."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from skan import keys, verify
from tests.skan import apple_vectors as apple
from tests.skan.signing import AAK_PAYLOAD, sign_jws, sign_skadnetwork

S = "\u2063"
BASE_2X = {"ad-network-id": "example123.skadnetwork", "campaign-id": 42, "app-id": 525463029,
           "transaction-id": "t-1", "redownload": False, "source-app-id": 1234567891}


@pytest.mark.parametrize(("body", "expected"), [
    ({**BASE_2X, "version": "2.0"},
     ["2.0", "example123.skadnetwork", "42", "525463029", "t-1", "false", "1234567891"]),
    ({**BASE_2X, "version": "2.1"},
     ["2.1", "example123.skadnetwork", "42", "525463029", "t-1", "false", "1234567891"]),
    ({**BASE_2X, "version": "2.2", "fidelity-type": 0},
     ["2.2", "example123.skadnetwork", "42", "525463029", "t-1", "false", "1234567891", "0"]),
    ({**BASE_2X, "version": "3.0", "fidelity-type": 1, "did-win": True},
     ["3.0", "example123.skadnetwork", "42", "525463029", "t-1", "false", "1234567891", "1",
      "true"]),
], ids=["2.0", "2.1", "2.2", "3.0"])
def test_each_version_joins_its_fields_in_apples_order(body, expected):
    assert verify.signed_string(body) == S.join(expected)


def test_version_4_signs_the_source_identifier_the_source_domain_and_the_window():
    assert verify.signed_string(apple.V4_COARSE) == S.join(
        ["4.0", "com.example", "39", "525463029", "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31",
         "false", "example.com", "1", "true", "0"])


def test_version_4_signs_a_source_app_where_it_has_one():
    body = {**apple.V4_COARSE, "source-app-id": 99}
    del body["source-domain"]
    assert S + "99" + S in verify.signed_string(body)


def test_a_postback_without_source_app_leaves_it_out_rather_than_blank():
    assert verify.signed_string(apple.V3_LOSS) == S.join(
        ["3.0", "example123.skadnetwork", "42", "525463029",
         "f9ac267a-a889-44ce-b5f7-0166d11461f0", "true", "1", "false"])


@pytest.mark.parametrize("name", list(apple.SKADNETWORK_EXAMPLES))
def test_apples_published_examples_verify(name):
    assert verify.verify_skadnetwork(apple.SKADNETWORK_EXAMPLES[name])


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return value[:-1] + ("1" if value[-1] != "1" else "2")


@pytest.mark.parametrize(("name", "field"), [
    (name, field) for name, body in apple.SKADNETWORK_EXAMPLES.items()
    for field in body if field not in ("attribution-signature", "conversion-value",
                                       "coarse-conversion-value", "version")
])
def test_apples_examples_with_one_signed_field_changed_do_not_verify(name, field):
    body = dict(apple.SKADNETWORK_EXAMPLES[name])
    body[field] = _changed(body[field])
    assert not verify.verify_skadnetwork(body)


@pytest.mark.parametrize("name", list(apple.SKADNETWORK_EXAMPLES))
def test_an_example_claiming_another_version_does_not_verify(name):
    body = dict(apple.SKADNETWORK_EXAMPLES[name])
    body["version"] = "2.1" if body["version"] != "2.1" else "2.2"
    assert not verify.verify_skadnetwork(body)


def test_conversion_values_are_not_signed_as_apple_documents():
    assert verify.verify_skadnetwork({**apple.V4_FINE, "conversion-value": 1})
    assert verify.verify_skadnetwork({**apple.V4_COARSE, "coarse-conversion-value": "low"})


@pytest.mark.parametrize("signature", ["", "not base64!", base64.b64encode(b"junk").decode(),
                                       apple.V3_WIN["attribution-signature"]])
def test_a_garbled_or_borrowed_signature_does_not_verify(signature):
    assert not verify.verify_skadnetwork({**apple.V4_FINE, "attribution-signature": signature})


def test_version_2_0_is_checked_with_a_p192_key():
    # Apple publishes no validly signed 2.0 example: a generated P-192 pair stands in.
    private = ec.generate_private_key(ec.SECP192R1())
    body = sign_skadnetwork({**BASE_2X, "version": "2.0"}, private)
    assert verify.verify_skadnetwork(body, public_keys={"2.0": private.public_key()})
    assert not verify.verify_skadnetwork({**body, "campaign-id": 43},
                                         public_keys={"2.0": private.public_key()})
    assert isinstance(keys.SKADNETWORK_KEYS["2.0"].curve, ec.SECP192R1)


def test_version_2_1_is_checked_with_the_p256_key():
    private = ec.generate_private_key(ec.SECP256R1())
    body = sign_skadnetwork({**BASE_2X, "version": "2.1"}, private)
    assert verify.verify_skadnetwork(body, public_keys={"2.1": private.public_key()})
    assert not verify.verify_skadnetwork({**body, "redownload": True},
                                         public_keys={"2.1": private.public_key()})
    assert not verify.verify_skadnetwork(body)  # signed by us, not by Apple
    assert isinstance(keys.SKADNETWORK_KEYS["2.1"].curve, ec.SECP256R1)


def test_apples_adattributionkit_example_verifies_with_its_development_key():
    parts = verify.jws_split(apple.AAK_JWS)
    assert parts.header == {"kid": "apple-development-identifier/1", "alg": "ES256"}
    assert verify.verify_jws(parts)


def test_apples_adattributionkit_example_does_not_verify_with_another_key():
    parts = verify.jws_split(apple.AAK_JWS)
    other = {"apple-development-identifier/1": keys.AAK_PUBLIC_KEYS["apple-cas-identifier/0"]}
    assert not verify.verify_jws(parts, public_keys=other)


def _b64url_json(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def test_apples_adattributionkit_example_with_its_payload_changed_does_not_verify():
    header, payload, signature = apple.AAK_JWS.split(".")
    changed = json.loads(verify.b64url_decode(payload))
    changed["source-identifier"] = "1235"
    assert not verify.verify_jws(verify.jws_split(f"{header}.{_b64url_json(changed)}.{signature}"))


def test_a_jws_naming_another_algorithm_or_kid_is_refused():
    header, payload, signature = apple.AAK_JWS.split(".")
    for swapped in ({"kid": "apple-development-identifier/1", "alg": "none"},
                    {"kid": "someone-else/0", "alg": "ES256"},
                    {"kid": ["apple-development-identifier/1"], "alg": "ES256"}):
        assert not verify.verify_jws(verify.jws_split(
            f"{_b64url_json(swapped)}.{payload}.{signature}"))


def test_a_jws_signed_with_a_generated_production_key_verifies_against_it():
    private = ec.generate_private_key(ec.SECP256R1())
    jws = sign_jws(AAK_PAYLOAD, private, kid=keys.AAK_PRODUCTION_KID)
    assert verify.verify_jws(verify.jws_split(jws),
                             public_keys={keys.AAK_PRODUCTION_KID: private.public_key()})
    assert not verify.verify_jws(verify.jws_split(jws))  # not Apple's signature


@pytest.mark.parametrize("text", ["", "a.b", "a.b.c.d", "!!.e30.e30", "W10.e30.AA", "e30.W10.AA"])
def test_what_is_not_a_compact_jws_is_malformed(text):
    with pytest.raises(verify.JwsMalformed):
        verify.jws_split(text)


def test_apples_keys_load_and_the_production_keys_are_one():
    assert set(keys.AAK_PUBLIC_KEYS) == {keys.AAK_PRODUCTION_KID, *keys.AAK_DEVELOPMENT_KIDS}
    assert keys.AAK_KEYS[keys.AAK_PRODUCTION_KID] == keys.SKADNETWORK_P256
