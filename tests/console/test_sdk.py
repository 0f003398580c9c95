"""The SDK set-up page: the app id, this service's address, the key to use (by name and prefix,
never a secret, not even one just created in this session), the calls with the app's values
and a copy button each, the app's platform first; another organization's app is a 404, and
hostile names are text. The keys page shows the app id and leads here.

When the key to use signs its requests every snippet signs them, and the page's curl commands,
run by bash against the running service of an app that refuses unsigned requests, are taken;
when it does not, the snippets carry no signature. An app that requires signed requests is
never offered a key that cannot sign."""

from __future__ import annotations

import html as html_text
import json
import os
import re
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from apps_registry.models import ApiKey
from apps_registry.services import api_key_create, api_key_create_signing
from console.security import POLICY
from fraud import services as fraud_services
from fraud.models import SignatureRefusal
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.factories import AppFactory
from tracking.models import Event, Install

pytestmark = pytest.mark.django_db


def sdk_url(app):
    return f"/console/apps/{app.id}/sdk"


def page(console, app) -> str:
    response = console.get(sdk_url(app))
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_the_app_id_the_address_and_the_key_to_use(console, app):
    key, _ = api_key_create(app=app, name="Android SDK", permissions=["write"])
    html = page(console, app)
    assert f'id="sdk-app-id" type="text" value="{app.id}"' in html
    assert 'value="http://testserver"' in html
    assert "Use the key <strong>Android SDK</strong>" in html
    assert f"<code>{key.key_prefix}</code>" in html
    assert key.secret_hash not in html
    assert f"const val APP_ID = &quot;{app.id}&quot;" in html
    assert "YOUR_API_KEY" in html


def test_behind_a_tls_proxy_the_address_is_the_configured_public_origin(console, app, settings):
    settings.LINKS_BASE_URL = "https://attribution.example.com"
    html = page(console, app)
    assert 'id="sdk-base-url" type="text" value="https://attribution.example.com"' in html
    assert "curl -sS --retry 5 -X POST https://attribution.example.com/api/v1/installs" in html


def test_each_snippet_has_a_copy_button_for_its_own_block(console, app):
    html = page(console, app)
    blocks = re.findall(r'<pre id="(snippet-[\w-]+)"', html)
    assert len(blocks) == len(set(blocks)) > 5
    assert {block.split("-")[1] for block in blocks} == {"android", "http"}
    for block in blocks:
        assert f'data-copy="{block}"' in html


def test_the_page_has_no_inline_script_under_the_consoles_policy(console, app):
    response = console.get(sdk_url(app))
    assert response["Content-Security-Policy"] == POLICY
    html = response.content.decode()
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert " onclick=" not in html and " style=" not in html


def test_a_read_only_or_expired_key_is_not_offered_and_the_page_links_to_create_one(console, app):
    api_key_create(app=app, name="Dashboard", permissions=["read"])
    api_key_create(app=app, name="Old", permissions=["write"],
                   expires_at=timezone.now() + timedelta(seconds=1))
    ApiKey.objects.filter(name="Old").update(expires_at=timezone.now() - timedelta(days=1))
    html = page(console, app)
    assert "Use the key" not in html
    assert "No active key can report installs and events" in html
    assert f'href="/console/apps/{app.id}/keys/new"' in html
    assert "no: needs write or admin" in html and "no: expired" in html


def test_a_key_just_created_in_this_session_is_not_shown_again_here(console, app):
    created = console.post(f"/console/apps/{app.id}/keys/new",
                           {"name": "iOS SDK", "permissions": ["write"]})
    assert created.status_code == 302
    html = page(console, app)
    shown = console.get(created["Location"]).content.decode()
    full_key = re.search(r'id="full-key" type="text" value="([^"]+)"', shown).group(1)
    assert full_key not in html
    assert ApiKey.objects.get().key_prefix in html
    assert "Use the key <strong>iOS SDK</strong>" in html


@pytest.mark.parametrize(("platform", "shown"), [
    ("ios", ["iOS (Swift)", "HTTP (curl)"]), ("android", ["Android (Kotlin)", "HTTP (curl)"]),
    ("web", ["HTTP (curl)"])])
def test_an_app_gets_its_own_platforms_guide_and_any_http_clients(console, owner, platform,
                                                                   shown):
    app = AppFactory(organization=owner.organization, platform=platform)
    html = page(console, app)
    assert re.findall(r'<a href="#guide-\w+"[^>]*>([^<]+)</a>', html) == shown


def test_an_ios_app_gets_its_bundle_id_and_the_conversion_value(console, owner):
    app = AppFactory(organization=owner.organization, platform="ios", bundle_id="com.acme.game",
                     package_name=None, url_scheme="acme")
    html = page(console, app)
    assert "Logger(subsystem: &quot;com.acme.game&quot;" in html
    assert "SKAdNetwork.updatePostbackConversionValue(" in html
    assert "&quot;acme://&quot;" in html


def test_another_organizations_app_is_a_404(console, outsider_app):
    assert console.get(sdk_url(outsider_app)).status_code == 404


def test_a_visitor_who_is_not_logged_in_is_sent_to_the_login_page(client, app):
    response = client.get(sdk_url(app))
    assert response.status_code == 302 and response["Location"].startswith("/console/login")


def test_hostile_app_and_key_names_are_shown_as_text(console, owner):
    app = AppFactory(organization=owner.organization, name=XSS_CAMPAIGN)
    api_key_create(app=app, name=XSS_SOURCE, permissions=["write"])
    html = page(console, app)
    assert_shown_as_text(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_keys_page_shows_the_app_id_and_leads_to_the_sdk_page(console, app):
    html = console.get(f"/console/apps/{app.id}/keys").content.decode()
    assert f'id="keys-app-id" type="text" value="{app.id}"' in html
    assert 'data-copy="keys-app-id"' in html
    assert f'href="{sdk_url(app)}"' in html


def test_the_apps_navigation_leads_to_the_sdk_page(console, app):
    html = console.get(f"/console/apps/{app.id}/installs").content.decode()
    assert f'<a href="{sdk_url(app)}">SDK set-up</a>' in html
    assert f'<a href="{sdk_url(app)}" aria-current="page">SDK set-up</a>' in page(console, app)


# --- Signing --------------------------------------------------------------------------------

SIGNED_SNIPPETS = ("snippet-android-setup", "snippet-http-install", "snippet-http-events")


def snippets(html: str) -> dict[str, str]:
    """Each code block's text as the page shows it (and its Copy button copies)."""
    return {block: html_text.unescape(text) for block, text in re.findall(
        r'<pre id="(snippet-[\w-]+)"[^>]*><code[^>]*>(.*?)</code></pre>', html, re.S)}


def enforce_signing(app) -> None:
    fraud_services.settings_update(app_id=app.id, changes={"signing_mode": "enforce"})


def test_a_signing_key_gets_code_that_signs_every_request(console, app):
    key, _, _ = api_key_create_signing(app=app, name="Signed SDK", permissions=["write"])
    html = page(console, app)
    assert "Use the key <strong>Signed SDK</strong>" in html
    assert "It signs its requests, so the code below signs each one" in html
    assert "<code>YOUR_SIGNING_SECRET</code>" in html
    code = snippets(html)
    for block in SIGNED_SNIPPETS:
        assert "X-Signature-Timestamp" in code[block] and "v1=" in code[block], block
    assert 'const val SIGNING_SECRET = "YOUR_SIGNING_SECRET"' in code["snippet-android-setup"]
    assert "-hmac 'YOUR_SIGNING_SECRET'" in code["snippet-http-install"]
    assert "X-Signature-Timestamp (the current Unix time in seconds)" in html  # any language
    assert re.search(r"<td><code>" + re.escape(key.key_prefix) + r"</code></td>.*?<td>yes</td>"
                     r"\s*<td>yes</td>", html, re.S)


def test_an_ios_apps_signing_key_gets_swift_that_signs(console, owner):
    app = AppFactory(organization=owner.organization, platform="ios", bundle_id="com.acme.game",
                     package_name=None)
    api_key_create_signing(app=app, name="Signed SDK", permissions=["write"])
    code = snippets(page(console, app))
    assert 'static let signingSecret = "YOUR_SIGNING_SECRET"' in code["snippet-ios-setup"]
    for block in ("snippet-ios-setup", "snippet-http-install", "snippet-http-conversion"):
        assert "X-Signature-Timestamp" in code[block] and "v1=" in code[block], block


def test_a_key_that_does_not_sign_gets_the_plain_code(console, app):
    api_key_create(app=app, name="Plain SDK", permissions=["write"])
    html = page(console, app)
    assert "Use the key <strong>Plain SDK</strong>" in html
    assert "Signature" not in html and "YOUR_SIGNING_SECRET" not in html
    assert "SIGNING_SECRET" not in "".join(snippets(html).values())


def test_an_app_that_requires_signatures_is_offered_only_a_key_that_signs(console, app):
    api_key_create_signing(app=app, name="Signed SDK", permissions=["write"])
    api_key_create(app=app, name="Newer plain", permissions=["write"])  # newest first
    enforce_signing(app)
    html = page(console, app)
    assert "Use the key <strong>Signed SDK</strong>" in html
    assert "no: this app requires signed requests" in html
    assert "X-Signature" in snippets(html)["snippet-http-install"]


def test_an_app_that_requires_signatures_with_no_key_that_signs_asks_for_one(console, app):
    api_key_create(app=app, name="Plain SDK", permissions=["write"])
    enforce_signing(app)
    html = page(console, app)
    assert "Use the key" not in html
    assert ("the SDK needs a key with the write or admin permission that signs its requests "
            "(this app refuses unsigned requests: its signing mode is enforce)") in html
    assert "X-Signature" in snippets(html)["snippet-http-install"]  # the key to create signs


def run_in_bash(command: str, *, key: str, secret: str) -> tuple[int, dict]:
    """The command as a developer pastes it, key and secret in place of the placeholders, run
    by bash; curl also writes the answer's status on a last line."""
    script = command.replace("YOUR_API_KEY", key).replace("YOUR_SIGNING_SECRET", secret)
    status_too = "curl() { command curl -w '\\n%{http_code}' \"$@\"; }\n"
    done = subprocess.run(["bash", "-c", status_too + script], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "NO_PROXY": "127.0.0.1,localhost"})
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body)


@pytest.mark.django_db(transaction=True)
def test_the_pages_signed_curl_commands_are_taken_by_an_app_that_refuses_unsigned_requests(
        console, owner, live_server, settings):
    settings.LINKS_BASE_URL = live_server.url  # the address the page gives the commands
    app = AppFactory(organization=owner.organization, platform="android")
    _, full_key, secret = api_key_create_signing(app=app, name="Signed SDK",
                                                 permissions=["write"])
    enforce_signing(app)
    code = snippets(page(console, app))

    status, answer = run_in_bash(code["snippet-http-install"], key=full_key, secret=secret)
    assert (status, answer["success"]) == (201, True), answer
    assert Install.objects.filter(app_id=app.id, id=answer["data"]["installId"]).exists()
    status, answer = run_in_bash(code["snippet-http-events"], key=full_key, secret=secret)
    assert status == 200 and answer["data"]["accepted"] == 2, answer
    assert Event.objects.filter(app_id=app.id).count() == 2

    # The same command with a wrong secret is refused, and nothing of it stored.
    status, answer = run_in_bash(code["snippet-http-install"], key=full_key, secret="0" * 64)
    assert status == 401 and answer["error"]["details"] == {"X-Signature": [
        "X-Signature does not match the request."]}, answer
    assert Install.objects.filter(app_id=app.id).count() == 1
    assert SignatureRefusal.objects.get(app_id=app.id).sub_reason == "wrong"
