"""An operator wires a webhook to their own server in a real browser: created in the console,
its secret shown once, a test sent and seen in the configuration's log with the receiver's
response code and body (printed as text), then a real install delivered by the README's worker.
"""

import re

import pytest
from standardwebhooks import Webhook as StandardWebhook

from tests.browser.helpers import RECEIVER_BODY
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

DEVICE = "5d6c2a10-0b1e-4c3f-9a77-2f1e0d9c8b7a"


def test_a_webhook_test_and_a_real_install_reach_the_receiver_and_show_in_its_log(
        page, service, tls_receiver, screenshot, troubles):
    account = api_sign_up(service, email="ops@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    key = api_create_key(service, account.token, app_id)
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")

    open_app_page(page, "Postbacks & webhooks")
    expect(page.get_by_text("No webhooks yet.")).to_be_visible()
    page.get_by_role("link", name="New webhook").click()
    hook_url = tls_receiver.url("/hooks/attribution?from=<b>console</b>")
    page.get_by_label("Webhook URL").fill(hook_url)
    page.get_by_role("checkbox", name="install", exact=True).check()
    page.get_by_role("button", name="Create webhook").click()
    expect(page.get_by_role("heading", name="Webhook created")).to_be_visible()
    secret = page.get_by_label("Signing secret").input_value()
    assert secret
    page.get_by_role("link", name="Back to postbacks & webhooks").click()

    row = page.get_by_role("row").filter(has_text=hook_url)  # the URL, printed as text
    expect(row).to_contain_text("Active")
    screenshot("deliveries")
    row.get_by_role("button", name="Send a test").click()
    expect(page.get_by_role("status")).to_have_text("Delivered: the receiver answered 200.")

    [request] = tls_receiver.wait_for(1)
    assert request.method == "POST" and request.path == "/hooks/attribution?from=<b>console</b>"
    sample = StandardWebhook(secret).verify(request.body, request.headers)  # the secret shown
    assert sample["test"] is True

    page.get_by_role("link", name="Open the log").click()
    expect(page.get_by_role("heading", name=re.compile("delivery log"))).to_be_visible()
    [entry] = page.get_by_role("row").filter(has_text="test").all()
    expect(entry.get_by_role("cell").nth(5)).to_have_text("200")  # the response code
    expect(entry).to_contain_text("succeeded")
    expect(entry.get_by_text(RECEIVER_BODY)).to_be_visible()  # the body, as text

    # A real install: attributed, so the README's worker sends it to the webhook.
    send_click(service, app_id, device_id=DEVICE, pid="facebook", c="summer")
    installed = send_install(service, key, app_id, device_id=DEVICE)
    assert installed.status_code == 201, installed.text
    delivered = page.get_by_role("row").filter(has_text="install").filter(has_not_text="test")
    reload_until(page, lambda: delivered.filter(has_text="succeeded").count() == 1,
                 what="the install's delivery in the log")
    expect(delivered.get_by_role("cell").nth(5)).to_have_text("200")
    screenshot("deliveries-log")
    [_test, sent] = tls_receiver.wait_for(2)
    assert StandardWebhook(secret).verify(sent.body, sent.headers)["data"]["device_id"] == DEVICE
    assert page.locator("img[src=x]").count() == 0
    assert troubles.dialogs == []
