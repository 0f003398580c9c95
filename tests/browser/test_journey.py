"""A marketer's whole first day in a real browser, against the service as the README runs it:
sign up, create the app, create a key and copy it, watch the SDK's first install arrive in the
overview and read its trail in the explorer, upload costs (a bad row first), read CPI and ROAS,
and revoke the key, after which the SDK is refused."""

import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from apps_registry.models import ApiKey
from tests.browser.helpers import stored
from tests.browser.steps import (
    body_scrolls_sideways,
    create_android_app,
    expect,
    open_app_page,
    reload_until,
    send_install,
    send_purchase,
    sign_up,
    tile,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

DEVICE = "38400000-8cf0-11bd-b23e-10b96e40000d"


def create_key_and_copy_it(page) -> str:
    open_app_page(page, "Keys")
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    page.get_by_role("link", name="New key").first.click()
    page.get_by_role("textbox", name="Name", exact=True).fill("android sdk")
    page.get_by_role("checkbox", name="write").check()
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("heading", name="Key created")).to_be_visible()
    expect(page.get_by_text("it will not be shown again")).to_be_visible()
    shown = page.get_by_label("API key").input_value()
    assert len(shown) > 20
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == shown
    return shown


def build_a_tracking_link_and_copy_it(page, screenshot) -> str:
    open_app_page(page, "Link builder")
    page.get_by_label("Media source").fill("facebook")
    page.get_by_label("Campaign (optional)").fill("summer")
    page.get_by_role("button", name="Build the link").click()
    link = page.get_by_label("Copy it into the ad's click URL").input_value()
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == link
    screenshot("link-builder")
    return link


def test_a_marketer_follows_an_install_from_the_sdk_to_the_reports(
        page, service, screenshot, tmp_path):
    sign_up(page, name="Mia Marketer", email="mia@example.com", company="Acme")
    app_id = create_android_app(page, name="Runner", package="com.acme.runner")
    key = create_key_and_copy_it(page)
    page.get_by_role("link", name="Done: back to the keys").click()
    expect(page.get_by_role("row", name=re.compile("android sdk"))).to_contain_text(key[:8])
    screenshot("keys")

    link = build_a_tracking_link_and_copy_it(page, screenshot)
    assert link.startswith(f"{service.url}/api/v1/clicks?")
    assert parse_qs(urlsplit(link).query) == {"app_id": [app_id], "pid": ["facebook"],
                                              "c": ["summer"]}

    # The ad click (through that link, the network appending the device's id) and the SDK's
    # install, as the README's curl flow sends them.
    clicked = requests.get(f"{link}&advertising_id={DEVICE}", allow_redirects=False,
                           timeout=10)
    assert clicked.status_code == 302
    assert clicked.headers["Location"].startswith("https://play.google.com/")
    installed = send_install(service, key, app_id, device_id=DEVICE)
    assert installed.status_code == 201, installed.text
    assert installed.json()["data"]["mediaSource"] == "facebook"
    assert installed.json()["data"]["matchType"] == "device_id"
    send_purchase(service, key, app_id, device_id=DEVICE, amount=4.99)

    open_app_page(page, "Overview")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    # Beat's refresh may count the install in one pass and the purchase, sent after it, in
    # the next: wait for both.
    reload_until(page, lambda: re.search(r"\b[1-9]", tile(page, "Installs").inner_text())
                 and "4.99" in tile(page, "Revenue").inner_text(),
                 what="the overview's tiles to count the install and the purchase")
    expect(tile(page, "Paid installs")).to_contain_text("1")
    expect(tile(page, "Revenue")).to_contain_text("4.99")
    expect(page.get_by_text("Figures include data through")).to_be_visible()
    chart = page.get_by_role("img", name=re.compile("Paid and organic installs"))
    expect(chart).to_be_visible()
    assert chart.evaluate("canvas => Boolean(window.Chart.getChart(canvas))")
    screenshot("overview")

    open_app_page(page, "Installs")
    expect(page.get_by_role("heading", name="Latest installs")).to_be_visible()
    screenshot("installs-list")
    page.get_by_label("Find an install by device id").fill(DEVICE)
    page.get_by_role("button", name="Find").click()
    found = page.get_by_role("row", name=re.compile(DEVICE))
    expect(found).to_have_count(1)
    expect(found).to_contain_text("facebook / summer")
    found.get_by_role("link").click()
    expect(page.get_by_role("heading", name=re.compile("^Install "))).to_be_visible()
    summary = page.get_by_role("main").get_by_text(re.compile("^Matched the click"))
    expect(summary).to_contain_text("facebook")
    expect(summary).to_contain_text("device id")
    expect(page.get_by_role("main")).to_contain_text(DEVICE)
    events = page.get_by_role("heading", name="Events and revenue")
    expect(events).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text("Revenue reported: 4.99 USD")
    screenshot("install-detail")

    upload_costs_and_read_the_roas(page, tmp_path, screenshot)
    visit_the_other_reports(page, screenshot)

    open_app_page(page, "Keys")
    used = page.get_by_role("row", name=re.compile("android sdk")).get_by_role("cell").nth(5)
    expect(used).to_have_text(re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d$"))  # last used
    page.get_by_role("link", name=re.compile("Revoke")).click()
    expect(page.get_by_role("heading", name=re.compile("Revoke the key"))).to_be_visible()
    page.get_by_role("button", name="Revoke the key").click()
    expect(page.get_by_text("No active keys")).to_be_visible()
    assert stored(lambda: ApiKey.objects.get().revoked_at) is not None
    refused = send_install(service, key, app_id, device_id="second-device-0001")
    assert refused.status_code == 401, refused.text


def upload_costs_and_read_the_roas(page, tmp_path, screenshot) -> None:
    today = datetime.now(UTC).date().isoformat()
    header = "date,media_source,campaign_id,cost,currency\n"
    bad = tmp_path / "costs-with-a-bad-row.csv"
    bad.write_text(header + f"{today},facebook,summer,10.00,USD\n"
                            f"{today},facebook,winter,ten dollars,USD\n")
    open_app_page(page, "Costs")
    page.get_by_label("CSV file").set_input_files(bad)
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_role("heading", name="Cost preview")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("1 of 2 rows need")
    bad_row = page.get_by_role("row", name=re.compile("ten dollars"))
    expect(bad_row).to_contain_text("cost: A valid number is required.")
    expect(bad_row.get_by_role("rowheader")).to_have_text("3")  # the file's third line
    expect(page.get_by_role("button", name=re.compile("^Apply"))).to_have_count(0)
    screenshot("costs-preview-with-an-error")

    good = tmp_path / "costs.csv"
    good.write_text(header + f"{today},facebook,summer,10.00,USD\n")
    page.get_by_role("link", name="Start over").click()
    page.get_by_label("CSV file").set_input_files(good)
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_role("status")).to_contain_text("All 1 row")
    screenshot("costs-preview")
    page.get_by_role("button", name="Apply 1 row").click()
    summer = page.get_by_role("row", name=re.compile("facebook summer"))
    # 10 USD for one install and 4.99 USD of revenue: CPI 10.00, ROAS 49.90 %.
    expect(summer).to_contain_text("10.00")
    expect(summer).to_contain_text("4.99")
    expect(summer).to_contain_text("49.90 %")
    screenshot("costs-applied")

    open_app_page(page, "Campaigns")
    expect(page.get_by_role("heading", name="Campaigns")).to_be_visible()
    row = page.get_by_role("row", name=re.compile("facebook summer"))
    expect(row).to_contain_text("10.00")
    expect(row).to_contain_text("49.9")
    screenshot("campaigns")


def visit_the_other_reports(page, screenshot) -> None:
    for link, heading, name in (("Sources", "Sources", "sources"),
                                ("Cohorts", "Cohorts", "cohorts"),
                                ("Revenue", "Revenue", "revenue"),
                                ("Exports", "Exports", "exports")):
        open_app_page(page, link)
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        assert not body_scrolls_sideways(page), name
        screenshot(name)
    open_app_page(page, "Sources")
    expect(page.get_by_role("row", name=re.compile("^facebook"))).to_contain_text("4.99")
    open_app_page(page, "Exports")
    with page.expect_download() as download:
        page.get_by_role("link", name="Installs CSV", exact=True).click()
    assert DEVICE in download.value.path().read_text()
