"""A postback's delivery log in a real browser: a network whose media source is 255 characters
(the longest the API takes) fits the postbacks table, a real install reaches the receiver, and
its log entry names the install with a link that opens the install's page."""

import re

import pytest
import requests

from tests.browser.steps import (
    api_create_app,
    api_create_key,
    api_sign_up,
    body_scrolls_sideways,
    expect,
    log_in,
    open_app_page,
    reload_until,
    send_click,
    send_install,
)
from tests.delivery.receivers import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

SOURCE = "network" * 35 + "-last-part"  # 245 + 10 = 255 characters, no space
DEVICE = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"


@pytest.fixture
def receiver():
    started = Receiver().start()
    yield started
    started.stop()


def overflowing_tables(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('main table')]
        .filter(t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 1)
        .map(t => (t.caption ? t.caption.textContent : t.className).trim())""")


def test_a_postbacks_log_entry_links_the_install_it_carried(page, service, receiver, screenshot):
    assert len(SOURCE) == 255
    account = api_sign_up(service, email="ua@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    created = requests.post(service.api("postbacks"), headers={
        "Authorization": f"Bearer {account.token}"}, json={
        "app_id": app_id, "media_source": SOURCE,
        "postback_url": receiver.url("/pb?install={install_id}&d={device_id}")}, timeout=10)
    assert created.status_code == 201, created.text

    send_click(service, app_id, device_id=DEVICE, pid=SOURCE, c="summer")
    installed = send_install(service, key, app_id, device_id=DEVICE)
    assert installed.status_code == 201, installed.text
    install_id = installed.json()["data"]["installId"]
    [request] = receiver.wait_for(1)
    assert f"install={install_id}" in request.path

    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")
    open_app_page(page, "Postbacks & webhooks")
    source_cell = page.get_by_role("cell", name=SOURCE)
    expect(source_cell).to_have_attribute("title", SOURCE)
    assert overflowing_tables(page) == []
    assert not body_scrolls_sideways(page)
    page.get_by_role("row").filter(has=source_cell).get_by_role("link", name="Log").click()
    expect(page.get_by_role("heading", name=re.compile("delivery log"))).to_be_visible()
    entry = page.get_by_role("row").filter(has_text="succeeded")
    reload_until(page, lambda: entry.count() == 1, what="the install's postback in the log")
    link = entry.get_by_role("link", name=f"Install {install_id[:8]}…")
    expect(link).to_have_attribute("title", f"Install {install_id}")
    assert overflowing_tables(page) == []
    assert not body_scrolls_sideways(page)  # "To <the source>" above the log wraps too
    screenshot("delivery-log-install")
    link.click()
    expect(page).to_have_url(f"{service.url}/console/apps/{app_id}/installs/{install_id}")
