"""The SDK set-up page's code (console/sdk_snippets.py): the curl examples are sent to the real
service exactly as written (with a real key in place of the placeholder) and must be accepted;
the Kotlin and Swift code sends only fields the API's serializers read, to paths that exist,
and reads only fields the answers have; with a signing key it signs each try as the service
checks (the page's signed curl commands run against the service: tests/console/test_sdk.py),
and without one it sends no signature; the app's values are filled in as safe literals; the
app's own platform comes first."""

from __future__ import annotations

import json
import re
import shlex
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import resolve
from django.utils import timezone

from apps_registry import keys
from console import sdk_snippets
from console.sdk_snippets import SdkTarget, guides
from conversion.serializers import ConversionValueInput, ConversionValueOutput
from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import PUBLIC_IP
from tracking.models import Event
from tracking.serializers import (
    ATT_STATUSES,
    AttributionResult,
    DeepLinkResult,
    EventBatchInput,
    InstallInput,
    MetaInstallReferrerInput,
)

APP_ID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
EVENT_FIELDS = {"event_id", "event_name", "properties", "timestamp", "session_id"}
SDK_USER_AGENT = "okhttp/4.12.0"


def target(platform: str, **values) -> SdkTarget:
    return SdkTarget(app_id=APP_ID, base_url="https://attribution.example.com/",
                     platform=platform, now_ms=int(timezone.now().timestamp() * 1000), **values)


def steps(platform: str, **values) -> dict[str, sdk_snippets.Snippet]:
    return {step.slug: step for guide in guides(target(platform, **values))
            for step in guide.steps}


def curl_request(command: str) -> tuple[str, dict[str, str], dict]:
    """(path, headers, JSON body) of a curl command as a shell would read it."""
    words = shlex.split(command.replace("\\\n", " "))
    assert words[0] == "curl"
    headers, body, url, index = {}, None, None, 1
    while index < len(words):
        word = words[index]
        if word in ("-X",):
            assert words[index + 1] == "POST"
            index += 2
        elif word == "--retry":
            index += 2
        elif word == "-H":
            name, value = words[index + 1].split(": ", 1)
            headers[name] = value
            index += 2
        elif word == "-d":
            body = json.loads(words[index + 1])
            index += 2
        elif word == "-sS":
            index += 1
        else:
            assert url is None, f"unexpected word {word!r}"
            url = word
            index += 1
    return urlsplit(url).path, headers, body


def send(command: str, full_key: str):
    path, headers, body = curl_request(command)
    assert headers == {"Content-Type": "application/json",
                       "X-API-Key": sdk_snippets.API_KEY_PLACEHOLDER}
    return Client().post(path, json.dumps(body), content_type=headers["Content-Type"],
                         HTTP_X_API_KEY=full_key, HTTP_USER_AGENT=SDK_USER_AGENT,
                         REMOTE_ADDR=PUBLIC_IP)


def fields(serializer_class) -> set[str]:
    return set(serializer_class().fields)


# --- curl, sent to the service ----------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("platform", ["android", "ios", "web"])
def test_every_curl_example_is_accepted_by_the_service_as_written(platform):
    app = AppFactory(platform=platform)
    full_key = issue_key(app)
    found = {step.slug: step for guide in guides(SdkTarget(
        app_id=str(app.id), base_url="http://testserver/", platform=platform,
        now_ms=int(timezone.now().timestamp() * 1000))) for step in guide.steps}

    install = send(found["http-install"].text, full_key)
    assert install.status_code == 201, install.content
    assert install.json()["data"]["installId"]

    events = send(found["http-events"].text, full_key)
    assert events.status_code == 200, events.content
    assert events.json()["data"] == {"accepted": 2, "rejected": [], "warnings": []}
    again = send(found["http-events"].text, full_key)  # a retry: the same event ids
    assert again.json()["data"]["accepted"] == 2
    assert Event.objects.filter(app_id=app.id).count() == 2
    purchase = Event.objects.get(app_id=app.id, event_name="purchase")
    assert (str(purchase.revenue_amount), purchase.revenue_currency) == ("4.990000", "USD")


@pytest.mark.django_db
def test_the_conversion_value_example_gets_a_value_to_set(owner, owner_api):
    app = AppFactory(organization=owner.organization, platform="ios", bundle_id="com.acme.game")
    assert owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", SCHEMA,
                          format="json").status_code == 201
    found = {step.slug: step for guide in guides(SdkTarget(
        app_id=str(app.id), base_url="http://testserver", platform="ios",
        now_ms=int(timezone.now().timestamp() * 1000))) for step in guide.steps}
    response = send(found["http-conversion"].text, issue_key(app))
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["fine"], data["coarse"], data["lock_window"], data["window"]) == (
        20, "medium", False, 0)


@pytest.mark.django_db
def test_the_example_answer_has_exactly_the_fields_of_a_real_install_answer():
    app = AppFactory(platform="android")
    real = send(steps("android")["http-install"].text.replace(APP_ID, str(app.id)).replace(
        "https://attribution.example.com", "http://testserver"), issue_key(app)).json()
    example = json.loads(steps("android")["http-answer"].text)
    assert example.keys() == real.keys()
    assert example["data"].keys() == real["data"].keys() == set(fields(AttributionResult)) - {
        "reengagement"}
    assert example["data"]["deepLink"].keys() == fields(DeepLinkResult)


# --- Kotlin and Swift: fields and paths -------------------------------------------------------

def kotlin_body_keys(text: str) -> set[str]:
    return set(re.findall(r'\.put\("(\w+)"', text))


def swift_body_keys(text: str) -> set[str]:
    return set(re.findall(r'^\s*"(\w+)": ', text, re.M)) | set(
        re.findall(r'body\["(\w+)"\] =', text))


def test_the_kotlin_install_sends_the_play_referrer_and_only_fields_the_api_reads():
    text = steps("android")["android-install"].text
    meta = text[text.index("fun metaInstallReferrer"):text.index("fun advertisingId")]
    assert kotlin_body_keys(meta) == fields(MetaInstallReferrerInput)
    sent = kotlin_body_keys(text.replace(meta, ""))
    assert sent <= fields(InstallInput)
    assert {"app_id", "platform", "sdk_version", "install_referrer", "device_id",
            "meta_install_referrer"} <= sent
    assert "InstallReferrerClient" in text and "installReferrer.installReferrer" in text
    # The referrer's timestamps are named only to say they are not sent.
    assert "referrerClickTimestampSeconds" in text
    assert not re.search(r"\.(referrerClickTimestampSeconds|installBeginTimestampSeconds)\b",
                         text)


def test_the_swift_install_sends_att_status_the_token_and_the_idfa_only_when_authorized():
    text = steps("ios")["ios-install"].text
    sent = swift_body_keys(text)
    assert sent <= fields(InstallInput)
    assert {"app_id", "platform", "sdk_version", "att_status", "attribution_token",
            "device_id"} <= sent
    assert set(re.findall(r'return "(\w+)"', text)) == set(ATT_STATUSES)
    assert "AAAttribution.attributionToken()" in text
    idfa = text.index("advertisingIdentifier")
    assert text.rfind('if status == "authorized"', 0, idfa) != -1


def test_events_carry_the_spec_fields_and_a_client_event_id_in_both_languages():
    android, ios = steps("android")["android-events"].text, steps("ios")["ios-events"].text
    revenue = {"amount", "currency"}  # keys of a purchase's properties
    batch = fields(EventBatchInput) | EVENT_FIELDS | revenue
    assert EVENT_FIELDS <= kotlin_body_keys(android) <= batch
    assert EVENT_FIELDS <= swift_body_keys(ios) <= batch
    for text in (android, ios):
        assert '"amount"' in text and '"currency"' in text and '"event_id"' in text


def test_retries_are_for_network_errors_429_and_5xx_only():
    kotlin = steps("android")["android-setup"].text
    swift = steps("ios")["ios-setup"].text
    assert "answer.status != 429 && answer.status < 500" in kotlin
    assert "status != 429 && status < 500" in swift
    assert "Retry-After" in kotlin and "Retry-After" in swift
    for step in steps("web").values():
        if step.language != "shell":
            continue
        command = step.text
        assert "--retry 5" in command and "--retry-all-errors" not in command


def test_the_swift_conversion_value_sends_and_reads_only_the_api_fields():
    text = steps("ios")["ios-conversion"].text
    assert swift_body_keys(text) <= fields(ConversionValueInput)
    read = set(re.findall(r'data\["(\w+)"\]', text))
    assert read and read <= fields(ConversionValueOutput)
    assert "SKAdNetwork.updatePostbackConversionValue(" in text


def test_the_answers_fields_read_by_kotlin_and_swift_exist():
    result = fields(AttributionResult) | fields(DeepLinkResult)
    kotlin = steps("android")["android-answer"].text
    swift = steps("ios")["ios-answer"].text
    read_kotlin = set(re.findall(r'(?:getString|isNull|optJSONObject|getJSONObject)\("(\w+)"\)',
                                 kotlin))
    read_swift = set(re.findall(r'(?:data|deepLink)\["(\w+)"\]', swift))
    assert {"deepLink", "value", "params"} <= read_kotlin <= result
    assert {"deepLink", "value", "params"} <= read_swift <= result


def test_every_path_the_code_calls_is_a_route_of_the_service():
    for platform in ("android", "ios", "web"):
        for step in steps(platform).values():
            for path in re.findall(r'"?(/api/v1/[\w-]+)', step.text):
                assert resolve(path).url_name, path


# --- The app's values ------------------------------------------------------------------------

def test_the_apps_values_are_filled_in_and_the_key_is_a_placeholder():
    found = steps("android", package_name="com.acme.game", url_scheme="acme")
    setup = found["android-setup"].text
    assert f'const val APP_ID = "{APP_ID}"' in setup
    assert 'const val BASE_URL = "https://attribution.example.com"' in setup
    assert 'const val API_KEY = "YOUR_API_KEY"' in setup
    assert "package com.acme.game.attribution" in setup
    assert '"acme://"' in found["android-answer"].text
    ios = steps("ios", bundle_id="com.acme.game", url_scheme="acme")
    assert 'Logger(subsystem: "com.acme.game"' in ios["ios-setup"].text
    assert '"acme://"' in ios["ios-answer"].text
    assert "https://attribution.example.com/api/v1/installs" in ios["http-install"].text


def test_an_app_without_a_scheme_or_package_gets_visible_placeholders():
    found = steps("android")
    assert "package com.example.app.attribution" in found["android-setup"].text
    assert '"yourapp://"' in found["android-answer"].text


def test_values_become_safe_literals_in_each_language():
    assert sdk_snippets.kotlin_string('a"b$c\\') == '"a\\"b\\$c\\\\"'
    assert sdk_snippets.swift_string('a"b\\(c)') == '"a\\"b\\\\(c)"'
    assert sdk_snippets.kotlin_package("com.example.in.fun") == (
        "com.example.`in`.`fun`.attribution")
    command = sdk_snippets.http_guide(SdkTarget(
        app_id=APP_ID, base_url="https://host/it's", platform="web", now_ms=1)).steps[0].text
    path, _, body = curl_request(command)
    assert path == "/it's/api/v1/installs" and body["app_id"] == APP_ID


@pytest.mark.parametrize(("platform", "order"), [
    ("ios", ["ios", "http"]),
    ("android", ["android", "http"]),
    ("web", ["http"]),
])
def test_an_app_gets_its_own_platforms_guide_then_any_http_clients(platform, order):
    assert [guide.slug for guide in guides(target(platform))] == order


def test_only_a_key_with_write_or_admin_that_has_not_expired_serves_the_sdk():
    now = timezone.now()
    assert keys.usable_by_sdk(permissions=["write"], expires_at=None, now=now)
    assert keys.usable_by_sdk(permissions=["admin", "read"], expires_at=None, now=now)
    assert not keys.usable_by_sdk(permissions=["read"], expires_at=None, now=now)
    assert not keys.usable_by_sdk(permissions=["write"], expires_at=now, now=now)


def test_the_key_to_use_is_the_one_the_sdk_endpoints_take_signatures_included():
    now = timezone.now()
    usable = {"permissions": ["write"], "expires_at": None, "now": now}
    assert keys.sdk_refusal(**usable, signs=False, signatures_required=False) is None
    assert keys.sdk_refusal(**usable, signs=True, signatures_required=True) is None
    assert keys.sdk_refusal(**usable, signs=False, signatures_required=True) == keys.CANNOT_SIGN
    assert keys.sdk_refusal(permissions=["read"], expires_at=None, now=now, signs=True,
                            signatures_required=False) == keys.NO_SDK_PERMISSION
    assert keys.sdk_refusal(permissions=["write"], expires_at=now, now=now, signs=True,
                            signatures_required=True) == keys.EXPIRED


# --- Signing --------------------------------------------------------------------------------

def signed(platform: str) -> dict[str, sdk_snippets.Snippet]:
    return steps(platform, signing=True)


def test_with_a_signing_key_kotlin_signs_the_bytes_it_sends_on_each_try():
    text = signed("android")["android-setup"].text
    assert "import javax.crypto.Mac\nimport javax.crypto.spec.SecretKeySpec" in text
    assert 'const val SIGNING_SECRET = "YOUR_SIGNING_SECRET"' in text
    # postJson calls send() once per try, and send() takes the time: each try signs anew.
    assert "withContext(Dispatchers.IO) { send(path, body) }" in text
    send = text[text.index("private fun send("):text.index("private fun sign(")]
    assert "val timestamp = (System.currentTimeMillis() / 1000).toString()" in send
    assert 'setRequestProperty("X-Signature-Timestamp", timestamp)' in send
    assert 'setRequestProperty("X-Signature", "v1=" + sign(timestamp, bytes))' in send
    assert "it.write(bytes)" in send and "toByteArray()) }" not in send
    sign = text[text.index("private fun sign("):]
    assert 'Mac.getInstance("HmacSHA256")' in sign
    assert 'SecretKeySpec(SIGNING_SECRET.toByteArray(Charsets.UTF_8), "HmacSHA256")' in sign
    assert 'mac.update("$timestamp.".toByteArray(Charsets.UTF_8))' in sign
    assert 'mac.doFinal(body).joinToString("") { "%02x".format(it) }' in sign


def test_with_a_signing_key_swift_signs_the_bytes_it_sends_on_each_try():
    text = signed("ios")["ios-setup"].text
    assert text.startswith("// Attribution.swift\nimport CryptoKit\n")
    assert 'static let signingSecret = "YOUR_SIGNING_SECRET"' in text
    assert "request.httpBody = payload" in text
    loop = text[text.index("for attempt in 1...maxAttempts"):text.index("func sign(")]
    assert "let timestamp = String(Int(Date().timeIntervalSince1970))" in loop
    assert ('request.setValue(timestamp, forHTTPHeaderField: "X-Signature-Timestamp")'
            in loop)
    assert ('request.setValue("v1=" + sign(timestamp, payload), forHTTPHeaderField: '
            '"X-Signature")' in loop)
    assert loop.index("X-Signature") < loop.index("URLSession.shared.data(for: request)")
    sign = text[text.index("func sign("):]
    assert "SymmetricKey(data: Data(Attribution.signingSecret.utf8))" in sign
    assert 'HMAC<SHA256>.authenticationCode(for: Data((timestamp + ".").utf8) + body,' in sign
    assert 'String(format: "%02x", $0)' in sign


def test_every_curl_example_signs_its_exact_body_with_a_signing_key():
    for platform in ("android", "ios", "web"):
        for step in signed(platform).values():
            if step.language != "shell":
                continue
            lines = step.text.split("\n")
            assert lines[0].startswith("BODY='{")
            assert "TIMESTAMP=$(date +%s)" in lines
            assert ("""SIGNATURE=$(printf '%s' "$TIMESTAMP.$BODY" \\""" in lines)
            assert ("  | openssl dgst -sha256 -hmac 'YOUR_SIGNING_SECRET' -r | cut -d' ' -f1)"
                    in lines)
            assert lines[-3:] == ['  -H "X-Signature-Timestamp: $TIMESTAMP" \\',
                                  '  -H "X-Signature: v1=$SIGNATURE" \\',
                                  '  --data-binary "$BODY"']


def test_without_a_signing_key_nothing_is_signed():
    for platform in ("android", "ios", "web"):
        for step in steps(platform).values():
            for word in ("Signature", "SIGNING", "signingSecret", "CryptoKit", "javax.crypto",
                         "openssl"):
                assert word not in step.text, (platform, step.slug, word)
    assert sdk_snippets.any_language_note(target("web")) == sdk_snippets.ANY_LANGUAGE_NOTE
    assert "X-Signature-Timestamp" in sdk_snippets.any_language_note(target("web",
                                                                            signing=True))
