"""What an ad network sends is shown as text on every page, in a real browser: a click whose
campaign is a script and whose media source breaks out of an attribute, and the install
attributed to it, render harmlessly on the overview, sources, campaigns and the install
explorer; no dialog opens, no element is injected, no page breaks the Content-Security-Policy.
"""

import re

import pytest

from tests.browser.steps import (
    api_create_app,
    api_create_key,
    api_sign_up,
    expect,
    log_in,
    open_app_page,
    reload_until,
    send_click,
    send_install,
    tile,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

CAMPAIGN = "<script>alert(1)</script>"
SOURCE = '"><img src=x onerror=alert(2)>'
AD = "<svg onload=alert(3)>"
DEVICE = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"


def shows_as_text(page, *texts: str) -> None:
    for text in texts:
        expect(page.get_by_role("main").get_by_text(text).first).to_be_visible()
    assert page.locator("img[src=x], svg[onload]").count() == 0, page.url


def test_a_campaign_and_media_source_holding_markup_are_shown_as_text_on_every_page(
        page, service, troubles, screenshot):
    account = api_sign_up(service, email="mia@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    send_click(service, app_id, device_id=DEVICE, pid=SOURCE, c=CAMPAIGN, af_ad=AD)
    installed = send_install(service, key, app_id, device_id=DEVICE)
    assert installed.status_code == 201, installed.text
    assert installed.json()["data"]["mediaSource"] == SOURCE
    assert installed.json()["data"]["campaignId"] == CAMPAIGN

    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")
    reload_until(page, lambda: re.search(r"\b1\b", tile(page, "Installs").inner_text()),
                 what="the overview to count the install")
    assert page.locator("img[src=x], svg[onload]").count() == 0

    open_app_page(page, "Sources")
    expect(page.get_by_role("rowheader", name=SOURCE, exact=True)).to_be_visible()
    shows_as_text(page, SOURCE)
    screenshot("sources-with-markup")

    open_app_page(page, "Campaigns")
    expect(page.get_by_role("cell", name=CAMPAIGN, exact=True)).to_be_visible()
    shows_as_text(page, SOURCE, CAMPAIGN)
    for model in ("First touch", "Linear", "Time decay"):
        page.get_by_role("link", name=model, exact=True).click()
        expect(page.get_by_role("cell", name=CAMPAIGN, exact=True)).to_be_visible()
        shows_as_text(page, SOURCE, CAMPAIGN)
    # Sorting swaps the table in place (htmx): the swapped-in rows are text too.
    page.get_by_role("main").get_by_role("link", name="Campaign", exact=True).click()
    expect(page.get_by_role("columnheader", name=re.compile("^Campaign"))).to_have_attribute(
        "aria-sort", re.compile("ascending|descending"))
    shows_as_text(page, SOURCE, CAMPAIGN)
    screenshot("campaigns-with-markup")

    open_app_page(page, "Installs")
    row = page.get_by_role("row", name=re.compile(DEVICE))
    expect(row).to_contain_text(f"{SOURCE} / {CAMPAIGN}")
    shows_as_text(page, f"{SOURCE} / {CAMPAIGN}")
    row.get_by_role("link").click()
    expect(page.get_by_role("heading", name=re.compile("^Install "))).to_be_visible()
    shows_as_text(page, f"from {SOURCE} / {CAMPAIGN}", AD)
    screenshot("install-detail-with-markup")

    page.get_by_role("link", name="All installs").click()
    page.get_by_label("Find an install by device id").fill(CAMPAIGN)
    page.get_by_role("button", name="Find").click()
    expect(page.get_by_role("heading", name=f"Device id {CAMPAIGN}")).to_be_visible()
    shows_as_text(page, CAMPAIGN)
    screenshot("installs-search-with-markup")

    for report in ("Overview", "Revenue", "Cohorts", "Exports"):
        open_app_page(page, report)
        expect(page.get_by_role("heading", name=report, exact=True)).to_be_visible()
        assert page.locator("img[src=x], svg[onload]").count() == 0, report

    assert troubles.dialogs == []
    assert troubles.csp_violations == []
