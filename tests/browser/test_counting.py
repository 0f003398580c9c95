"""What counts, in a real browser (docs/metrics.md, "What counts"): with the click-to-install rule
in block mode, a hijacked install is blocked; the overview shows it as a tile of its own beside
installs that leave it out, and the revenue page shows its purchase apart from the revenue."""

import pytest
import requests

from tests.browser.steps import (
    api_create_app,
    api_create_key,
    api_sign_up,
    expect,
    log_in,
    reload_until,
    send_click,
    send_install,
    send_purchase,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def tile(page, label: str):
    """The KPI tile whose label reads `label` (the revenue page's heading says "Revenue" too)."""
    return page.locator("dl.tiles").get_by_text(label, exact=True).locator("xpath=..")


def value(page, label: str) -> str:
    return tile(page, label).locator("dd.value").inner_text()


def test_the_overview_and_revenue_pages_show_a_blocked_install_apart(page, service, screenshot):
    account = api_sign_up(service, email="mia@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    # The rule that catches install hijacking, in block mode, said in so many words.
    answer = requests.put(service.api(f"apps/{app_id}/fraud-settings"),
                          headers={"Authorization": f"Bearer {account.token}"},
                          json={"ctit_anomalies_mode": "block", "ctit_floor_seconds": 10},
                          timeout=10)
    assert answer.status_code == 200, answer.text
    key = api_create_key(service, account.token, app_id)
    assert send_install(service, key, app_id, device_id="honest-phone").status_code == 201
    send_click(service, app_id, device_id="hijacked-phone", pid="hijacker", c="spring")
    blocked = send_install(service, key, app_id, device_id="hijacked-phone")
    assert blocked.status_code == 201 and blocked.json()["data"]["isOrganic"] is True
    send_purchase(service, key, app_id, device_id="honest-phone", amount=5.00)
    send_purchase(service, key, app_id, device_id="hijacked-phone", amount=7.00)

    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")
    reload_until(page, lambda: value(page, "Blocked installs") == "1"
                 and value(page, "Revenue") == "5.00 USD",
                 what="the blocked install and the revenue on the overview")
    assert (value(page, "Installs"), value(page, "Organic installs"),
            value(page, "Paid installs")) == ("1", "1", "0")
    expect(tile(page, "Blocked installs")).to_contain_text("Not in installs or revenue.")
    screenshot("counting-overview")

    page.get_by_role("navigation", name="Runner").get_by_role(
        "link", name="Revenue", exact=True).click()
    expect(page.get_by_role("heading", name="Revenue", exact=True)).to_be_visible()
    assert (value(page, "Revenue"), value(page, "Revenue of blocked installs"),
            value(page, "Installs")) == ("5.00 USD", "7.00 USD", "1")
    expect(tile(page, "Revenue of blocked installs")).to_contain_text("Not in revenue.")
    screenshot("counting-revenue")
