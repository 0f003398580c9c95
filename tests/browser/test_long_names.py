"""The longest names the API takes, in a real browser: an app name, a key name, a link's name,
media source and campaign (200 and 255 characters, no space) wrap inside their columns in the
apps, keys and links lists, each with the whole value in the cell's title, and no page scrolls
sideways."""

import pytest
import requests

from tests.browser.steps import (
    api_sign_up,
    body_scrolls_sideways,
    expect,
    log_in,
    open_app_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

APP_NAME = "Runner" * 33 + "Go"  # 200 characters
KEY_NAME = "androidsdkkey" * 15 + "12345"  # 200
LINK_NAME = "summerlink" * 20  # 200
SOURCE = "network" * 36 + "end"  # 255
CAMPAIGN = "campaign" * 31 + "-last-p"  # 255


def overflowing_tables(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('main table')]
        .filter(t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 1)
        .map(t => (t.caption ? t.caption.textContent : t.className).trim())""")


def api(service, token, method, path, body):
    answer = requests.request(method, service.api(path), json=body, timeout=10,
                              headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]


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
