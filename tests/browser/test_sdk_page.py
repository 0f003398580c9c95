"""A developer's first hour in a real browser: from the app's keys to the SDK set-up page,
which shows the app's id and the key to use (its prefix, never its secret), and whose curl
example, copied with its button and given the key, is accepted by the running service. With a
key that signs its requests, in an app that refuses unsigned ones, the copied example signs
and, given the key and its signing secret, is accepted too."""

import json
import re

import pytest
import requests

from tests.browser.steps import api_token, create_android_app, expect, open_app_page, sign_up
from tests.console.test_sdk import run_in_bash
from tests.console.test_sdk_snippets import curl_request

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def create_key(page, *, signing: bool = False) -> str:
    open_app_page(page, "Keys")
    page.get_by_role("link", name="New key").first.click()
    page.get_by_role("textbox", name="Name", exact=True).fill("android sdk")
    page.get_by_role("checkbox", name="write").check()
    if signing:
        page.get_by_role("checkbox", name="Signs its requests").check()
    page.get_by_role("button", name="Create key").click()
    return page.get_by_label("API key").input_value()


def test_a_developer_copies_the_install_call_with_the_apps_values_and_it_works(
        page, service, screenshot):
    sign_up(page, name="Dev", email="dev@example.com", company="Acme")
    app_id = create_android_app(page, name="Runner", package="com.acme.runner")
    key = create_key(page)
    page.get_by_role("link", name="Done: back to the keys").click()
    expect(page.get_by_label(re.compile("^App id"))).to_have_value(app_id)
    page.get_by_role("main").get_by_role("link", name=re.compile("^SDK set-up")).click()

    expect(page.get_by_role("heading", name="SDK set-up", exact=True)).to_be_visible()
    expect(page.get_by_label("App id")).to_have_value(app_id)
    expect(page.get_by_label("Service address")).to_have_value(service.url)
    expect(page.get_by_text("Use the key")).to_contain_text(key[:len("ak_") + 12])
    assert key not in page.content()
    tabs = page.get_by_role("navigation", name="Platforms").get_by_role("link")
    expect(tabs.first).to_have_text("Android (Kotlin)")
    expect(page.get_by_role("heading", name="HTTP (curl)")).to_be_hidden()
    screenshot("sdk-setup")

    tabs.get_by_text("HTTP (curl)").click()
    expect(page.get_by_role("heading", name="HTTP (curl)")).to_be_visible()
    expect(page.get_by_role("heading", name="Android (Kotlin)")).to_be_hidden()
    expect(tabs.get_by_text("HTTP (curl)")).to_have_attribute("aria-current", "true")
    page.get_by_role("button", name="Copy").and_(
        page.locator('[data-copy="snippet-http-install"]')).click()
    command = page.evaluate("navigator.clipboard.readText()")
    path, headers, body = curl_request(command)
    assert body["app_id"] == app_id and headers["X-API-Key"] == "YOUR_API_KEY"
    answer = requests.post(service.url + path, data=json.dumps(body), timeout=10,
                           headers={**headers, "X-API-Key": key})
    assert answer.status_code == 201, answer.text


def test_a_signing_keys_copied_install_call_signs_and_an_enforcing_app_takes_it(
        page, service, screenshot):
    account = sign_up(page, name="Dev", email="dev@example.com", company="Acme")
    app_id = create_android_app(page, name="Runner", package="com.acme.runner")
    key = create_key(page, signing=True)
    secret = page.get_by_label("Signing secret").input_value()
    page.get_by_role("link", name="Done: back to the keys").click()
    enforced = requests.put(service.api(f"apps/{app_id}/fraud-settings"), timeout=10,
                            headers={"Authorization": f"Bearer {api_token(service, account)}"},
                            json={"signing_mode": "enforce"})
    assert enforced.status_code == 200, enforced.text

    open_app_page(page, "SDK set-up")
    expect(page.get_by_text("It signs its requests, so the code below signs each one")
           ).to_be_visible()
    assert key not in page.content() and secret not in page.content()
    page.get_by_role("navigation", name="Platforms").get_by_role("link").get_by_text(
        "HTTP (curl)").click()
    expect(page.locator("#snippet-http-install")).to_contain_text("X-Signature: v1=$SIGNATURE")
    screenshot("sdk-setup-signed")
    page.get_by_role("button", name="Copy").and_(
        page.locator('[data-copy="snippet-http-install"]')).click()
    command = page.evaluate("navigator.clipboard.readText()")
    status, answer = run_in_bash(command, key=key, secret=secret)
    assert (status, answer["success"]) == (201, True), answer
