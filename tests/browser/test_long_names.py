"""The longest names the API takes, in a real browser: an app name, a key name, a link's name,
media source, campaign and ad set (200 and 255 characters, no space) wrap inside their columns
wherever a page lists them (apps, keys, links, installs and an install's trail, the reports,
costs, a postback's delivery log, the SDK set-up page), each with the whole value in its
title, and no page scrolls sideways."""

from datetime import UTC, datetime

import pytest
import requests

from tests.browser.helpers import SCREENSHOTS
from tests.browser.steps import (
    api_sign_up,
    body_scrolls_sideways,
    expect,
    log_in,
    open_app_page,
    reload_until,
    send_click,
    send_install,
    send_purchase,
)
from tests.delivery.receivers import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

APP_NAME = "Runner" * 33 + "Go"  # 200 characters
KEY_NAME = "androidsdkkey" * 15 + "12345"  # 200
LINK_NAME = "summerlink" * 20  # 200
SOURCE = "network" * 36 + "end"  # 255
CAMPAIGN = "campaign" * 31 + "-last-p"  # 255
ADSET = "adset" * 50 + "-last"  # 255
OTHER_SOURCE = "othernet" * 31 + "-lost-p"  # 255: the network whose click lost
CREDITED = "3c2b1a09-8f7e-4d6c-9b5a-a1b2c3d4e5f6"
BLOCKED = "4d3c2b1a-9f8e-4e7d-8c6b-b2c3d4e5f6a7"


@pytest.fixture
def receiver():
    started = Receiver().start()
    yield started
    started.stop()


def overflowing_tables(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('main table')]
        .filter(t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 1)
        .map(t => (t.caption ? t.caption.textContent : t.className).trim())""")


def api(service, token, method, path, body, status=201):
    answer = requests.request(method, service.api(path), json=body, timeout=10,
                              headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == status, answer.text
    return answer.json()["data"]


def fits(page) -> bool:
    """No table wider than its box, and the page itself does not scroll sideways."""
    return overflowing_tables(page) == [] and not body_scrolls_sideways(page)


def shows_whole(page, role: str, value: str) -> None:
    """The table cell (or row header) reading `value` has the whole of it in its title."""
    expect(page.get_by_role(role, name=value, exact=True).first).to_have_attribute(
        "title", value)


def test_the_longest_names_wrap_in_the_apps_keys_and_links_lists(page, service, screenshot):
    assert (len(APP_NAME), len(KEY_NAME), len(LINK_NAME), len(SOURCE), len(CAMPAIGN)) == (
        200, 200, 200, 255, 255)
    account = api_sign_up(service, email="names@example.com", company="Acme")
    app_id = api(service, account.token, "POST", "apps", {
        "name": APP_NAME, "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.runner"}
    )["app"]["id"]
    api(service, account.token, "POST", f"apps/{app_id}/keys", {"name": KEY_NAME})
    api(service, account.token, "POST", "links", {
        "app_id": app_id, "name": LINK_NAME, "media_source": SOURCE, "campaign_id": CAMPAIGN})
    log_in(page, account)

    page.goto("/console/")
    expect(page.get_by_role("link", name=APP_NAME)).to_have_attribute("title", APP_NAME)
    assert overflowing_tables(page) == [] and not body_scrolls_sideways(page)
    page.goto(f"/console/apps/{app_id}/")
    open_app_page(page, "Keys", app=APP_NAME)
    expect(page.get_by_role("cell", name=KEY_NAME)).to_have_attribute("title", KEY_NAME)
    assert overflowing_tables(page) == [] and not body_scrolls_sideways(page)
    open_app_page(page, "Links", app=APP_NAME)
    expect(page.get_by_role("link", name=LINK_NAME)).to_have_attribute("title", LINK_NAME)
    expect(page.get_by_role("cell", name=f"{SOURCE} / {CAMPAIGN}")).to_have_attribute(
        "title", f"{SOURCE} / {CAMPAIGN}")
    assert overflowing_tables(page) == [] and not body_scrolls_sideways(page)
    screenshot("links-long-names")


def test_the_longest_source_campaign_and_ad_set_wrap_on_every_page_that_shows_them(
        page, service, receiver, screenshot):
    assert (len(ADSET), len(OTHER_SOURCE)) == (255, 255)
    account = api_sign_up(service, email="longest@example.com", company="Acme")
    token = account.token
    app_id = api(service, token, "POST", "apps", {
        "name": APP_NAME, "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.runner"}
    )["app"]["id"]
    key = api(service, token, "POST", f"apps/{app_id}/keys", {"name": KEY_NAME})["key"]
    api(service, token, "POST", "postbacks", {
        "app_id": app_id, "media_source": SOURCE,
        "postback_url": receiver.url("/pb?pid={media_source}&c={campaign_id}")})
    day = datetime.now(UTC).date().isoformat()
    api(service, token, "POST", "costs", {"app_id": app_id, "rows": [{
        "date": day, "media_source": SOURCE, "campaign_id": CAMPAIGN, "cost": "120.50",
        "currency": "USD"}]}, status=200)
    # An install credited (and flagged) to the longest names, over another network's click;
    # then, with the rule set to block, an install whose claim by them is refused.
    fraud = f"apps/{app_id}/fraud-settings"
    api(service, token, "PUT", fraud, {"ctit_anomalies_mode": "flag", "ctit_floor_seconds": 10},
        status=200)
    send_click(service, app_id, device_id=CREDITED, pid=OTHER_SOURCE, c=CAMPAIGN)
    send_click(service, app_id, device_id=CREDITED, pid=SOURCE, c=CAMPAIGN, af_adset=ADSET)
    credited = send_install(service, key["full_key"], app_id, device_id=CREDITED)
    assert credited.status_code == 201 and credited.json()["data"]["mediaSource"] == SOURCE
    send_purchase(service, key["full_key"], app_id, device_id=CREDITED, amount=4.99)
    [postback] = receiver.wait_for(1)
    assert SOURCE in postback.path and CAMPAIGN in postback.path
    api(service, token, "PUT", fraud, {"ctit_anomalies_mode": "block"}, status=200)
    send_click(service, app_id, device_id=BLOCKED, pid=SOURCE, c=CAMPAIGN)
    blocked = send_install(service, key["full_key"], app_id, device_id=BLOCKED)
    assert blocked.status_code == 201 and blocked.json()["data"]["isOrganic"] is True
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")

    open_app_page(page, "Installs", app=APP_NAME)
    shows_whole(page, "cell", f"{SOURCE} / {CAMPAIGN}")
    shows_whole(page, "cell", f"organic (refused: {SOURCE} / {CAMPAIGN})")
    assert fits(page)
    screenshot("installs-long-names")
    page.get_by_role("row").filter(has_text=CREDITED).get_by_role("link").click()
    expect(page.get_by_role("main")).to_contain_text(ADSET)
    shows_whole(page, "cell", f"{OTHER_SOURCE} / {CAMPAIGN}")  # the click that lost
    shows_whole(page, "cell", "purchase")
    assert fits(page)
    screenshot("install-long-names")

    for report in ("Sources", "Campaigns", "Revenue", "Fraud"):
        open_app_page(page, report, app=APP_NAME)
        reload_until(page, lambda: page.get_by_role("rowheader", name=SOURCE, exact=True)
                     .count() > 0, what=f"the source on the {report} page")
        shows_whole(page, "rowheader", SOURCE)
        if report in ("Campaigns", "Fraud"):
            shows_whole(page, "cell", CAMPAIGN)
        assert fits(page), report
    screenshot("fraud-long-names")
    open_app_page(page, "Cohorts", app=APP_NAME)
    assert fits(page)

    open_app_page(page, "Costs", app=APP_NAME)
    shows_whole(page, "cell", SOURCE)
    shows_whole(page, "cell", CAMPAIGN)
    assert fits(page)

    open_app_page(page, "Postbacks & webhooks", app=APP_NAME)
    page.get_by_role("row").filter(has=page.get_by_role("cell", name=SOURCE)).get_by_role(
        "link", name="Log").click()
    sent = page.locator("table.delivery-log code.url").filter(has_text=SOURCE)
    reload_until(page, lambda: sent.count() == 1, what="the install's postback in the log")
    expect(sent).to_have_attribute("title", receiver.url(postback.path))
    assert fits(page)
    screenshot("delivery-log-long-names")

    open_app_page(page, "SDK set-up", app=APP_NAME)
    expect(page.locator(".key-choice strong")).to_have_text(KEY_NAME)
    shows_whole(page, "cell", KEY_NAME)
    assert fits(page)
    key_section = page.get_by_role("region", name="The key to use")
    key_section.screenshot(path=SCREENSHOTS / "sdk-long-key-name.png")  # not the long guides
