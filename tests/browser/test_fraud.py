"""A newcomer looks into a blocked install in a real browser, against the service as the
README runs it: the install list says it was blocked and why, its page says the device's click
was found and refused and what happened instead, and on the fraud settings page a mode is
changed, which the API then answers and the next install is judged by."""

import re

import pytest
import requests

from tests.browser.steps import (
    api_create_app,
    api_create_key,
    api_sign_up,
    expect,
    log_in,
    open_app_page,
    send_click,
    send_install,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

HIJACKED = "5a0c7f3e-1b2d-4c6e-9f80-112233445566"
LATER = "6b1d8a4f-2c3e-4d7f-8a91-223344556677"


def fraud_settings(service, token, app_id, **changes) -> dict:
    """The app's fraud settings as the API answers them, after a PUT of `changes` if any."""
    headers = {"Authorization": f"Bearer {token}"}
    address = service.api(f"apps/{app_id}/fraud-settings")
    answer = (requests.put(address, headers=headers, json=changes, timeout=10) if changes
              else requests.get(address, headers=headers, timeout=10))
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]["fraud_settings"]


def test_a_blocked_install_is_explained_and_its_rule_changed_in_the_console(
        page, service, screenshot, troubles):
    account = api_sign_up(service, email="lead@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    # The rule this test is about, set here: install hijacking blocked under a 10 s floor.
    fraud_settings(service, account.token, app_id, ctit_anomalies_mode="block",
                   ctit_floor_seconds=10)
    key = api_create_key(service, account.token, app_id)
    send_click(service, app_id, device_id=HIJACKED, pid="hijacker", c="c7")
    answer = send_install(service, key, app_id, device_id=HIJACKED)
    assert answer.status_code == 201 and answer.json()["data"]["isOrganic"] is True

    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/installs")
    row = page.get_by_role("row").filter(has_text=HIJACKED)
    expect(row).to_contain_text(re.compile(r"Blocked: click to install in \d+ s "
                                           r"\(install hijacking\)"))
    expect(row).to_contain_text("organic (refused: hijacker / c7)")
    page.get_by_label("Fraud status").select_option("clean")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("main")).to_contain_text("No clean installs.")
    page.get_by_label("Fraud status").select_option("blocked")
    page.get_by_role("button", name="Show").click()
    row = page.get_by_role("row").filter(has_text=HIJACKED)
    screenshot("installs-blocked")

    row.get_by_role("link").click()
    summary = page.locator(".trail-summary")
    expect(summary).to_contain_text(re.compile(
        r"^Blocked: found the click of (\d{4}-\d\d-\d\d )?\d\d:\d\d from hijacker / c7 with "
        r"this device id and refused it \(click \d+ s before install: below the 10 s floor "
        r"\(install hijacking\)\); no other click qualified, so the install was credited"))
    expect(page.get_by_role("main")).not_to_contain_text("No click with this device id")
    expect(page.locator(".trail-steps")).to_contain_text("Device id: Found the click of")
    screenshot("install-blocked")

    open_app_page(page, "Fraud settings")
    expect(page.get_by_role("heading", name="Fraud settings", exact=True)).to_be_visible()
    hijacking = page.get_by_label(re.compile("^Install hijacking"))
    expect(hijacking).to_have_value("block")
    hijacking.select_option("flag")
    page.get_by_label("Click-to-install floor, seconds").fill("15")
    page.get_by_role("button", name="Save fraud settings").click()
    expect(page.get_by_role("status")).to_contain_text("Saved the fraud settings")
    expect(page.get_by_label(re.compile("^Install hijacking"))).to_have_value("flag")
    screenshot("fraud-settings")
    answered = fraud_settings(service, account.token, app_id)
    assert answered["ctit_anomalies_mode"] == "flag" and answered["ctit_floor_seconds"] == 15

    # Applied: the next hijacked install is credited and flagged, no longer blocked.
    send_click(service, app_id, device_id=LATER, pid="quick", c="c8")
    answer = send_install(service, key, app_id, device_id=LATER)
    assert answer.status_code == 201 and answer.json()["data"]["mediaSource"] == "quick"
    page.goto(f"/console/apps/{app_id}/installs?fraud=flagged")
    expect(page.get_by_role("row").filter(has_text=LATER)).to_contain_text(
        re.compile(r"Flagged: click to install in \d+ s \(install hijacking\)"))

    # A refused value is shown beside its field.
    open_app_page(page, "Fraud settings")
    page.get_by_label("Listed networks (CIDR), one per line").fill("203.0.113.0/33")
    page.get_by_role("button", name="Save fraud settings").click()
    expect(page.get_by_role("alert")).to_contain_text("Please check Listed networks")
    expect(page.locator("#err_listed_networks")).to_contain_text(
        "Item 1: must be an IPv4 or IPv6 network in CIDR notation")
    assert fraud_settings(service, account.token, app_id)["listed_networks"] == []
    assert troubles.none()
