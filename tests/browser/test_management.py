"""The management pages no other story opens, in a real browser: an app's settings and its
deletion through the confirmation, and a postback created, edited, deactivated and deleted."""

import pytest
import requests

from tests.browser.steps import (
    api_create_app,
    api_sign_up,
    expect,
    log_in,
    open_app_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def test_an_owner_renames_the_app_then_deletes_it_through_the_confirmation(
        page, service, screenshot):
    account = api_sign_up(service, email="mia@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")

    open_app_page(page, "Settings")
    page.get_by_role("textbox", name="Name", exact=True).fill("")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "Please check Name: see the message beside each field.")
    page.get_by_role("textbox", name="Name", exact=True).fill("Runner <b>2</b>")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    screenshot("app-settings")

    page.get_by_role("link", name="Delete this app…").click()
    expect(page.get_by_role("heading", name="Delete Runner <b>2</b>?")).to_be_visible()
    expect(page.get_by_text("every click, install, re-engagement and in-app event")).to_be_visible()
    page.get_by_label("Type the app's name to confirm").fill("Runner")
    page.get_by_role("button", name="Delete the app and its data").click()
    expect(page.get_by_text("Does not match the app's name; nothing was deleted.")).to_be_visible()
    page.get_by_label("Type the app's name to confirm").fill("Runner <b>2</b>")
    page.get_by_role("button", name="Delete the app and its data").click()
    expect(page.get_by_text("Deleted Runner <b>2</b> and its data.")).to_be_visible()
    expect(page.get_by_text("Create your first app")).to_be_visible()
    assert page.goto(f"/console/apps/{app_id}/").status == 404


def test_a_postback_is_created_edited_deactivated_and_deleted(page, service, screenshot):
    account = api_sign_up(service, email="ops@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")

    open_app_page(page, "Postbacks & webhooks")
    page.get_by_role("link", name="New postback").click()
    page.get_by_label("Media source").fill("facebook")
    page.get_by_label("Postback URL template").fill("ftp://network.example/pb")
    page.get_by_role("button", name="Create postback").click()
    expect(page.locator("#err_postback_url")).to_be_visible()  # beside the field
    page.get_by_label("Postback URL template").fill(
        "https://network.example/pb?device={device_id}")
    page.get_by_role("button", name="Create postback").click()
    row = page.get_by_role("row").filter(has_text="https://network.example/pb?device={device_id}")
    expect(row).to_contain_text("Active")

    row.get_by_role("link", name="Edit").click()
    page.get_by_label("Postback URL template").fill("https://network.example/v2?d={device_id}")
    page.get_by_role("button", name="Save changes").click()
    row = page.get_by_role("row").filter(has_text="https://network.example/v2?d={device_id}")
    row.get_by_role("button", name="Deactivate").click()
    row = page.get_by_role("row").filter(has_text="https://network.example/v2?d={device_id}")
    expect(row).to_contain_text("Inactive")
    expect(row.get_by_role("button", name="Activate")).to_be_visible()
    screenshot("deliveries-postback")

    row.get_by_role("link", name="Delete…").click()
    page.get_by_role("button", name="Delete the postback").click()
    expect(page.get_by_text("No postbacks yet.")).to_be_visible()


def test_a_conversion_schema_is_saved_from_rows_then_refused_beside_the_row(
        page, service, screenshot):
    account = api_sign_up(service, email="ios@example.com", company="Acme")
    android = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    answer = requests.post(service.api("apps"),
                           headers={"Authorization": f"Bearer {account.token}"},
                           json={"name": "Runner iOS", "platform": "ios",
                                 "bundle_id": "com.acme.runner"}, timeout=10)
    assert answer.status_code == 201, answer.text
    app_id = answer.json()["data"]["app"]["id"]
    log_in(page, account)
    page.goto(f"/console/apps/{android}/")
    expect(page.get_by_role("navigation", name="Runner").get_by_role(
        "link", name="SKAdNetwork")).to_have_count(0)  # Apple's, for iOS apps only
    page.goto(f"/console/apps/{app_id}/")

    open_app_page(page, "SKAdNetwork", app="Runner iOS")
    expect(page.get_by_text("No postbacks arrived in this range.")).to_be_visible()
    screenshot("skan-report")
    page.get_by_role("navigation", name="SKAdNetwork").get_by_role(
        "link", name="Conversion schema").click()
    expect(page.get_by_text("No schema yet")).to_be_visible()
    expect(page.get_by_label("Days 0-2, rule 1: event")).to_have_value("purchase")
    page.get_by_role("button", name="Save as a new version").click()
    expect(page.get_by_role("heading", name="Active: version 1")).to_be_visible()
    screenshot("conversion-schema")

    page.get_by_label("Days 0-2, rule 1: fine value").fill("64")
    page.get_by_label("Days 0-2, rule 1: fine value").press("Enter")  # Enter saves
    expect(page.locator("#err_w0-r0-fine")).to_contain_text("an integer from 0 to 63")
    page.get_by_role("button", name="Add rows to Days 3-7").click()  # htmx, or a reload
    expect(page.get_by_label("Days 3-7, rule 6: event")).to_have_value("")
    expect(page.get_by_label("Days 0-2, rule 1: fine value")).to_have_value("64")

    page.get_by_text("Advanced: the schema as JSON").click()
    page.get_by_label("Schema (JSON)").fill('{"currency": "USD",\n "windows": [}')
    page.get_by_role("button", name="Save this JSON as a new version").click()
    expect(page.locator("#err_schema")).to_contain_text("line 2, column 14")
    page.get_by_role("navigation", name="Runner iOS").get_by_role(
        "link", name="SKAdNetwork", exact=True).click()
    page.get_by_role("navigation", name="SKAdNetwork").get_by_role(
        "link", name="Conversion schema").click()
    expect(page.get_by_role("heading", name="Active: version 1")).to_be_visible()
