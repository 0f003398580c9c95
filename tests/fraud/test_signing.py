"""SDK request signing (fraud/signing.py, the SDK pipeline's check): the scheme, its worked
example in docs/fraud.md, the modes, and the key that answers its secret once."""

import json
import logging
import re
import time
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from fraud import services as fraud_services
from fraud import signing
from fraud import verdict as v
from fraud.models import SignatureRefusal, SigningSecret
from tests.console.helpers import console  # noqa: F401 - the console's signed-in client
from tests.legacy_secrets import legacy_token
from tracking.models import Install

DOC = Path(__file__).resolve().parents[2] / "docs" / "fraud.md"
EXAMPLE_SECRET = "5f2b1c0e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c"
EXAMPLE_TIMESTAMP = "1767225600"
EXAMPLE_BODY = (b'{"app_id":"3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f","platform":"android",'
                b'"sdk_version":"6.0.0","device_id":"38400000-8cf0-11bd-b23e-10b96e40000d"}')
# Computed apart from our code, with `openssl dgst -sha256 -hmac` (the command is in the doc).
EXAMPLE_SIGNATURE = "v1=005ce7fe7bff6a23fce829f6fe6b5aa0573bed5cc1e9b25a017346fe03e1c367"


def test_the_worked_example_of_the_docs_signs_as_documented():
    assert signing.header(EXAMPLE_SECRET, EXAMPLE_TIMESTAMP, EXAMPLE_BODY) == EXAMPLE_SIGNATURE
    text = DOC.read_text()
    for part in (EXAMPLE_SECRET, EXAMPLE_TIMESTAMP, EXAMPLE_BODY.decode(), EXAMPLE_SIGNATURE):
        assert part in text


def check(signatures, *, timestamp=EXAMPLE_TIMESTAMP, now=int(EXAMPLE_TIMESTAMP),
          body=EXAMPLE_BODY):
    return signing.problem(secret=EXAMPLE_SECRET, timestamp=timestamp, signatures=signatures,
                           body=body, now_seconds=now, max_age=300)


def test_a_good_signature_passes_and_each_fault_is_named():
    assert check(EXAMPLE_SIGNATURE) is None
    assert check(f"v0=abc, {EXAMPLE_SIGNATURE}") is None  # one of several versions/secrets
    assert check(None) == signing.MISSING
    assert check(EXAMPLE_SIGNATURE, timestamp=None) == signing.MISSING
    assert check(EXAMPLE_SIGNATURE, timestamp="soon") == signing.MALFORMED
    assert check("sha256=" + "0" * 64) == signing.MALFORMED
    assert check(EXAMPLE_SIGNATURE, body=EXAMPLE_BODY + b" ") == signing.WRONG
    assert check(EXAMPLE_SIGNATURE, now=int(EXAMPLE_TIMESTAMP) + 300) is None
    assert check(EXAMPLE_SIGNATURE, now=int(EXAMPLE_TIMESTAMP) + 301) == signing.EXPIRED
    assert check(EXAMPLE_SIGNATURE, now=int(EXAMPLE_TIMESTAMP) - 301) == signing.EXPIRED


# --- Through the API -------------------------------------------------------------------------

@pytest.fixture
def signing_key(owner_api, app):
    response = owner_api.post(f"/api/v1/apps/{app.id}/keys", {"name": "sdk", "signing": True},
                              format="json")
    assert response.status_code == 201
    return response.json()["data"]["key"]


def signed_install(app, key, *, secret=None, timestamp=None, device="gaid-9"):
    body = json.dumps({"app_id": str(app.id), "platform": "android", "sdk_version": "6.0.0",
                       "device_id": device}).encode()
    client = APIClient()
    headers = {"HTTP_X_API_KEY": key["full_key"]}
    if secret is not None:
        stamp = str(timestamp or int(time.time()))
        headers["HTTP_X_SIGNATURE_TIMESTAMP"] = stamp
        headers["HTTP_X_SIGNATURE"] = signing.header(secret, stamp, body)
    return client.post("/api/v1/installs", body, content_type="application/json", **headers)


@pytest.mark.django_db
def test_a_signing_key_answers_its_secret_once_and_stores_it_encrypted(signing_key, owner_api,
                                                                        app):
    secret = signing_key["signing_secret"]
    assert len(secret) == 64
    row = SigningSecret.objects.get(key_id=signing_key["id"])
    assert secret not in row.secret_encrypted
    listed = owner_api.get(f"/api/v1/apps/{app.id}/keys").json()["data"]["keys"]
    assert "signing_secret" not in json.dumps(listed)


@pytest.mark.django_db
def test_a_key_without_signing_has_no_secret(owner_api, app):
    key = owner_api.post(f"/api/v1/apps/{app.id}/keys", {"name": "plain"}, format="json")
    assert "signing_secret" not in key.json()["data"]["key"]
    bad = owner_api.post(f"/api/v1/apps/{app.id}/keys", {"signing": "yes"}, format="json")
    assert bad.status_code == 400 and "signing" in bad.json()["error"]["details"]


@pytest.mark.django_db
def test_enforce_refuses_an_unsigned_install_with_a_401_stores_nothing_and_counts_it(
        signing_key, app):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    response = signed_install(app, signing_key)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"
    assert "X-Signature" in response.json()["error"]["details"]
    assert not Install.objects.exists()
    assert SignatureRefusal.objects.get(app=app, sub_reason="missing").refusals == 1
    signed_install(app, signing_key)
    assert SignatureRefusal.objects.get(app=app, sub_reason="missing").refusals == 2


@pytest.mark.django_db
def test_enforce_refuses_a_wrong_or_old_signature(signing_key, app):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    assert signed_install(app, signing_key, secret="0" * 64).status_code == 401
    old = int(time.time()) - 301
    assert signed_install(app, signing_key, secret=signing_key["signing_secret"],
                          timestamp=old).status_code == 401
    assert {r.sub_reason for r in SignatureRefusal.objects.filter(app=app)} == {
        "wrong", "expired"}
    assert not Install.objects.exists()


@pytest.mark.django_db
def test_enforce_accepts_a_good_signature(signing_key, app):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    response = signed_install(app, signing_key, secret=signing_key["signing_secret"])
    assert response.status_code == 201
    assert Install.objects.get().fraud_status == v.CLEAN


@pytest.mark.django_db
def test_enforce_refuses_a_key_that_cannot_sign(sdk_key, app):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    response = signed_install(app, {"full_key": sdk_key}, secret="")
    assert response.status_code == 401


@pytest.mark.django_db
def test_report_stores_an_unsigned_install_and_flags_it(signing_key, app):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_REPORT})
    response = signed_install(app, signing_key)
    assert response.status_code == 201
    row = Install.objects.get()
    assert row.fraud_status == v.FLAGGED
    assert row.fraud_reasons == [{"reason": "incorrect_signature", "value": None,
                                  "sub_reason": "missing"}]


@pytest.mark.django_db
def test_off_ignores_signatures(signing_key, app):
    assert signed_install(app, signing_key).status_code == 201
    assert Install.objects.get().fraud_status == v.CLEAN


def shown(html: str, field: str) -> str:
    return re.search(rf'id="{field}" type="text" value="([^"]+)"', html).group(1)


@pytest.mark.django_db
def test_the_console_makes_a_signing_key_and_shows_its_secret_once(console, app):  # noqa: F811
    created = console.post(f"/console/apps/{app.id}/keys/new",
                           {"name": "Android SDK", "permissions": ["write"], "signing": "on"})
    assert created.status_code == 302
    html = console.get(created["Location"]).content.decode()
    key = {"full_key": shown(html, "full-key")}
    secret = shown(html, "signing-secret")
    assert SigningSecret.objects.filter(key_id=created["Location"].split("/")[-2]).exists()
    assert secret not in console.get(created["Location"]).content.decode()  # once
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    assert signed_install(app, key).status_code == 401
    assert signed_install(app, key, secret=secret).status_code == 201


@pytest.mark.django_db
def test_a_console_key_without_the_box_has_no_signing_secret(console, app):  # noqa: F811
    created = console.post(f"/console/apps/{app.id}/keys/new",
                           {"name": "Android SDK", "permissions": ["write"]})
    html = console.get(created["Location"]).content.decode()
    assert 'id="full-key"' in html and 'id="signing-secret"' not in html
    assert not SigningSecret.objects.exists()


# --- The stored secret across a change of SECRET_KEY -----------------------------------------

@pytest.mark.django_db
def test_a_secret_stored_before_purposes_still_checks_signatures(signing_key, app):
    row = SigningSecret.objects.get(key_id=signing_key["id"])
    row.secret_encrypted = legacy_token(signing_key["signing_secret"])
    row.save()
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    response = signed_install(app, signing_key, secret=signing_key["signing_secret"])
    assert response.status_code == 201
    assert Install.objects.get().fraud_status == v.CLEAN


@pytest.mark.django_db
def test_enforce_answers_a_secret_lost_with_the_old_secret_key_as_a_wrong_signature(
        signing_key, app, settings, caplog):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_ENFORCE})
    settings.SECRET_KEY = "a-brand-new-secret-key-without-the-old-as-fallback"
    caplog.set_level(logging.WARNING, logger="fraud.services")
    for _ in range(2):
        response = signed_install(app, signing_key, secret=signing_key["signing_secret"])
        assert response.status_code == 401
        error = response.json()["error"]
        assert error["code"] == "UNAUTHORIZED"
        assert error["details"] == {"X-Signature": ["X-Signature does not match the request."]}
    assert SignatureRefusal.objects.get(app=app, sub_reason="wrong").refusals == 2
    assert not Install.objects.exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and signing_key["id"] in warnings[0]
    assert signing_key["signing_secret"] not in caplog.text


@pytest.mark.django_db
def test_report_flags_an_install_whose_keys_secret_was_lost_as_wrongly_signed(
        signing_key, app, settings):
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": v.SIGNING_REPORT})
    settings.SECRET_KEY = "a-brand-new-secret-key-without-the-old-as-fallback"
    response = signed_install(app, signing_key, secret=signing_key["signing_secret"])
    assert response.status_code == 201
    assert Install.objects.get().fraud_reasons == [
        {"reason": "incorrect_signature", "value": None, "sub_reason": "wrong"}]
    assert not SignatureRefusal.objects.exists()
