"""An admin answers an erasure request in a real browser, against the service as the README
runs it: filed on the app's privacy page, run by the README's worker, shown completed with
the rows it blanked, and the install search no longer finds the device."""

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
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

DEVICE = "7e1f0c2b-3a4d-4e5f-8a9b-0c1d2e3f4a5b"


def test_an_erasure_filed_in_the_console_completes_and_the_device_is_gone(
        page, service, screenshot, troubles):
    account = api_sign_up(service, email="dpo@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    send_click(service, app_id, device_id=DEVICE, pid="facebook", c="summer")
    assert send_install(service, key, app_id, device_id=DEVICE).status_code == 201
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/installs?q={DEVICE}")
    expect(page.get_by_role("main")).to_contain_text("facebook")

    open_app_page(page, "Privacy requests")
    expect(page.get_by_text("No privacy requests yet.")).to_be_visible()
    page.get_by_label("Request type").select_option("erasure")
    page.get_by_label("Identity type").select_option("android_advertising_id")
    page.get_by_label("Identity", exact=True).fill(DEVICE.upper())
    page.get_by_role("button", name="File request").click()
    expect(page.get_by_role("heading", name="Erasure request")).to_be_visible()
    state = page.locator("#request-state")
    reload_until(page, lambda: state.inner_text() == "Completed", what="the erasure to run")
    expect(page.get_by_role("cell", name="Installs", exact=True)).to_be_visible()
    expect(page.get_by_text("tracking_install")).to_have_count(0)  # the console speaks words
    assert DEVICE not in page.content()
    screenshot("privacy-request")

    page.goto(f"/console/apps/{app_id}/installs?q={DEVICE}")
    expect(page.get_by_role("main")).not_to_contain_text("facebook")
    assert troubles.none()
