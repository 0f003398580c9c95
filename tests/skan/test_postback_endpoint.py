"""Apple's postback copies arriving at the well-known paths: counted once when they verify,
kept apart with a reason when not, and never a 500."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from skan import keys
from skan.models import Postback, RefusedPostback
from tests.factories import AppFactory
from tests.skan import apple_vectors as apple
from tests.skan.signing import AAK_PAYLOAD, sign_jws

SKAN = "/.well-known/skadnetwork/report-attribution/"
AAK = "/.well-known/appattribution/report-attribution/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def ios_app(db):
    return AppFactory(platform="ios", package_name=None, bundle_id="com.example.shop",
                      apple_app_id=str(apple.APP_STORE_ID))


def post(api, path, body):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return api.post(path, data=data, content_type="application/json")


@pytest.mark.parametrize("name", list(apple.SKADNETWORK_EXAMPLES))
def test_apples_example_is_counted_for_the_app_with_its_app_store_id(api, ios_app, name):
    response = post(api, SKAN, apple.SKADNETWORK_EXAMPLES[name])
    assert response.status_code == 200
    assert response.json()["data"] == {"status": "stored", "reason": ""}
    row = Postback.objects.get()
    assert row.app == ios_app and row.verdict == "verified"
    assert json.loads(row.raw_body) == apple.SKADNETWORK_EXAMPLES[name]


def test_a_version_4_postback_keeps_every_field_apple_sent(api, ios_app):
    post(api, SKAN, apple.V4_FINE)
    row = Postback.objects.get()
    assert (row.framework, row.version, row.ad_network_id, row.transaction_id) == (
        "skadnetwork", "4.0", "com.example", "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30")
    assert (row.source_identifier, row.campaign_id, row.source_domain, row.source_app_id) == (
        "5239", None, "example.com", "")
    assert (row.fidelity_type, row.interaction_type, row.redownload, row.did_win) == (
        1, "click", False, True)
    assert (row.fine_value, row.coarse_value, row.postback_sequence_index) == (63, "", 0)


def test_a_version_3_postback_keeps_its_campaign_as_the_source_identifier(api, ios_app):
    post(api, SKAN, apple.V3_WIN)
    row = Postback.objects.get()
    assert (row.campaign_id, row.source_identifier, row.source_app_id, row.fine_value) == (
        42, "42", "1234567891", 20)


def test_a_duplicate_is_answered_200_and_stored_once(api, ios_app):
    first = post(api, SKAN, apple.V4_COARSE)
    again = post(api, SKAN, apple.V4_COARSE)
    assert first.status_code == again.status_code == 200
    assert again.json()["data"]["status"] == "duplicate"
    assert Postback.objects.count() == 1


def test_a_tampered_example_is_refused_for_its_signature_and_not_counted(api, ios_app):
    response = post(api, SKAN, {**apple.V4_FINE, "source-identifier": "5238"})
    assert response.status_code == 200
    assert response.json()["data"] == {"status": "refused", "reason": "bad_signature"}
    assert not Postback.objects.exists()
    refused = RefusedPostback.objects.get()
    assert (refused.reason, refused.app_store_id, refused.transaction_id) == (
        "bad_signature", "525463029", "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30")


def test_a_postback_for_an_app_nobody_registered_is_refused(api, db):
    response = post(api, SKAN, apple.V4_FINE)
    assert response.json()["data"] == {"status": "refused", "reason": "unknown_app"}
    assert not Postback.objects.exists()
    assert RefusedPostback.objects.get().reason == "unknown_app"


def test_an_app_store_id_two_apps_claim_is_counted_for_neither(api, ios_app):
    AppFactory(platform="ios", package_name=None, bundle_id="com.other.shop",
               apple_app_id=str(apple.APP_STORE_ID))
    response = post(api, SKAN, apple.V4_FINE)
    assert response.json()["data"] == {"status": "refused", "reason": "ambiguous_app"}
    assert not Postback.objects.exists()


def test_apps_sharing_one_endpoint_domain_each_get_their_own_postbacks(api, ios_app):
    other = AppFactory(platform="ios", package_name=None, bundle_id="com.example.other",
                       apple_app_id="777")
    private = ec.generate_private_key(ec.SECP256R1())
    jws = sign_jws({**AAK_PAYLOAD, "advertised-item-identifier": 777}, private,
                   kid=keys.AAK_PRODUCTION_KID)
    post(api, SKAN, apple.V4_FINE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(keys.AAK_PUBLIC_KEYS, keys.AAK_PRODUCTION_KID, private.public_key())
        post(api, AAK, {"jws-string": jws})
    assert Postback.objects.get(framework="skadnetwork").app == ios_app
    assert Postback.objects.get(framework="adattributionkit").app == other


@pytest.mark.parametrize(("body", "field"), [
    (b"not json", "JSON"),
    (b"\xff\xfe", "JSON"),
    (b"[1, 2]", "object"),
    (b"", "JSON"),
    ({**apple.V4_FINE, "app-id": "525463029"}, "app-id"),
    ({**apple.V4_FINE, "redownload": "false"}, "redownload"),
    ({**apple.V4_FINE, "postback-sequence-index": 3}, "postback-sequence-index"),
    ({**apple.V4_FINE, "source-identifier": "12345"}, "source-identifier"),
    ({**apple.V4_FINE, "conversion-value": 64}, "conversion-value"),
    ({**apple.V4_FINE, "coarse-conversion-value": "huge"}, "coarse-conversion-value"),
    ({**apple.V4_FINE, "source-app-id": 1}, "not both"),
    ({k: v for k, v in apple.V3_WIN.items() if k != "did-win"}, "did-win"),
    ({k: v for k, v in apple.V2_2.items() if k != "attribution-signature"},
     "attribution-signature"),
    ({**apple.V3_WIN, "transaction-id": ["x"]}, "transaction-id"),
    (b"[" * 100_000 + b"]" * 100_000, "larger"),
], ids=lambda value: value if isinstance(value, str) else None)
def test_a_body_that_is_not_a_postback_is_a_400_and_kept(api, ios_app, body, field):
    response = post(api, SKAN, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["message"]
    refused = RefusedPostback.objects.get()
    assert refused.reason == "malformed"
    assert len(refused.raw_body) <= RefusedPostback.RAW_BODY_LIMIT
    assert not Postback.objects.exists()


@pytest.mark.parametrize("body", [
    {**apple.V4_FINE, "version": "4.0\x00"},   # a NUL in a field the refusal repeats
    {**apple.V4_FINE, "transaction-id": "t\x00"},
    b'{"version": "4.0\x00"}',                 # a raw NUL byte: not JSON at all
], ids=["nul-in-version", "nul-in-transaction-id", "nul-byte"])
def test_a_nul_character_is_refused_and_kept_never_a_500(api, ios_app, body):
    response = post(api, SKAN, body)
    assert response.status_code in (200, 400)
    refused = RefusedPostback.objects.get()
    assert "\x00" not in refused.raw_body + refused.detail + refused.transaction_id
    assert not Postback.objects.exists()


@pytest.mark.parametrize("version", ["1.0", "5.0", 4.0, None])
def test_a_version_we_cannot_verify_is_refused_not_failed(api, ios_app, version):
    body = {**apple.V4_FINE, "version": version}
    response = post(api, SKAN, body)
    assert response.status_code == 200
    assert response.json()["data"] == {"status": "refused", "reason": "unsupported_version"}


def test_a_development_signed_adattributionkit_postback_is_refused_by_default(api, db):
    AppFactory(platform="ios", package_name=None, apple_app_id=str(apple.AAK_APP_STORE_ID))
    response = post(api, AAK, apple.AAK_BODY)
    assert response.json()["data"] == {"status": "refused", "reason": "development_key"}
    assert not Postback.objects.exists()


def test_apples_adattributionkit_example_counts_when_development_keys_are_accepted(
        api, db, settings):
    settings.SKAN_ACCEPT_DEVELOPMENT_POSTBACKS = True
    app = AppFactory(platform="ios", package_name=None, apple_app_id=str(apple.AAK_APP_STORE_ID))
    response = post(api, AAK, apple.AAK_BODY)
    assert response.json()["data"] == {"status": "stored", "reason": ""}
    row = Postback.objects.get()
    assert row.app == app and row.verdict == "verified_development"
    assert (row.framework, row.version, row.transaction_id, row.ad_network_id) == (
        "adattributionkit", "", "85546EB7-FD39-44BC-8990-C98A4AC36A49",
        "development.adattributionkit")
    assert (row.source_identifier, row.did_win, row.postback_sequence_index) == ("1234", True, 0)
    assert (row.conversion_type, row.redownload, row.marketplace) == (
        "re-engagement", False, "com.apple.AppStore")
    assert (row.fine_value, row.interaction_type, row.country_code, row.source_app_id) == (
        24, "click", "US", "")
    assert post(api, AAK, apple.AAK_BODY).json()["data"]["status"] == "duplicate"


def test_an_adattributionkit_postback_signed_with_the_production_key_counts(api, ios_app):
    private = ec.generate_private_key(ec.SECP256R1())  # Apple publishes no production example
    jws = sign_jws(AAK_PAYLOAD, private, kid=keys.AAK_PRODUCTION_KID)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(keys.AAK_PUBLIC_KEYS, keys.AAK_PRODUCTION_KID, private.public_key())
        response = post(api, AAK, {"jws-string": jws, "coarse-conversion-value": "medium"})
    assert response.json()["data"]["status"] == "stored"
    row = Postback.objects.get()
    assert (row.verdict, row.coarse_value, row.fine_value, row.source_app_id) == (
        "verified", "medium", None, "1234567891")
    assert (row.postback_sequence_index, row.redownload) == (1, False)


def test_an_adattributionkit_postback_not_signed_by_apple_is_refused(api, ios_app):
    private = ec.generate_private_key(ec.SECP256R1())
    jws = sign_jws(AAK_PAYLOAD, private, kid=keys.AAK_PRODUCTION_KID)
    response = post(api, AAK, {"jws-string": jws})
    assert response.json()["data"] == {"status": "refused", "reason": "bad_signature"}


@pytest.mark.parametrize("body", [
    {"jws-string": "a.b"},
    {"jws-string": 5},
    {"conversion-value": 3},
    {**apple.AAK_BODY, "country-code": "usa"},
    {**apple.AAK_BODY, "ad-interaction-type": "tap"},
])
def test_an_adattributionkit_body_that_is_not_a_postback_is_a_400(api, db, body):
    assert post(api, AAK, body).status_code == 400
    assert RefusedPostback.objects.get().reason == "malformed"


def test_the_endpoints_take_only_post(api, db):
    assert api.get(SKAN).status_code == 405
    assert api.get(AAK).status_code == 405


def test_the_endpoints_are_in_the_openapi_schema(owner_api):
    schema = owner_api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert SKAN in schema["paths"] and AAK in schema["paths"]
