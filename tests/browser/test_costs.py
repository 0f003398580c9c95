"""Cost upload with the longest values the API takes, in a real browser: a 255-character media
source and campaign wrap inside their columns in the preview and in the cost-by-campaign
table (the whole value in the cell's title), so the figures stay on the page."""

from datetime import UTC, datetime

import pytest

from tests.browser.steps import api_create_app, api_sign_up, expect, log_in, open_app_page

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

SOURCE = "s" * 250 + "-tail"  # 255 characters without a space: the longest media source
CAMPAIGN = "c" * 250 + "-tail"


def overflowing_tables(page) -> list[str]:
    """The captions of tables wider than the box they sit in (each would scroll sideways)."""
    return page.evaluate("""() => [...document.querySelectorAll('main table')]
        .filter(t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 1)
        .map(t => (t.caption ? t.caption.textContent : t.className).trim())""")


def test_a_255_character_source_wraps_in_the_preview_and_the_cost_table(
        page, service, screenshot):
    account = api_sign_up(service, email="ua@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    log_in(page, account)
    page.goto(f"/console/apps/{app_id}/")
    open_app_page(page, "Costs")

    day = datetime.now(UTC).date().isoformat()
    page.get_by_label("Or paste the CSV text").fill(
        f"date,media_source,campaign_id,cost,currency\n{day},{SOURCE},{CAMPAIGN},120.50,USD\n")
    page.get_by_role("button", name="Check the file").click()
    expect(page.get_by_text("All 1 row is valid.")).to_be_visible()
    assert overflowing_tables(page) == []
    expect(page.get_by_role("cell", name=SOURCE)).to_have_attribute("title", SOURCE)
    screenshot("costs-preview-long-source")

    page.get_by_role("button", name="Apply 1 row").click()
    expect(page.get_by_text("Imported 1 cost row: 1 new, 0 replaced.")).to_be_visible()
    source_cell = page.get_by_role("cell", name=SOURCE)
    expect(source_cell).to_have_attribute("title", SOURCE)
    expect(page.get_by_role("cell", name=CAMPAIGN)).to_have_attribute("title", CAMPAIGN)
    assert overflowing_tables(page) == []
    cost = page.get_by_role("row").filter(has=source_cell).get_by_role("cell").nth(3)
    expect(cost).to_have_text("120.50")
    box = cost.bounding_box()  # the figures are not pushed off the side of the page
    assert box["x"] + box["width"] <= page.viewport_size["width"]
    screenshot("costs-long-source")
