"""A visitor's first minutes in a real browser: signing up, creating an app, logging out and
in, another organization's app kept out of sight, and the login page and overview at phone
width."""

import pytest

from tests.browser.steps import (
    api_create_app,
    api_sign_up,
    body_scrolls_sideways,
    create_android_app,
    expect,
    log_in,
    open_menu,
    sign_up,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_a_visitor_signs_up_creates_an_app_and_finds_it_in_the_list(page, screenshot):
    page.goto("/")
    expect(page).to_have_url("/console/login")
    page.get_by_role("link", name="Sign up").click()
    sign_up(page, name="Mia Marketer", email="mia@example.com", company="Acme")
    expect(page.get_by_role("heading", name="Apps")).to_be_visible()
    expect(page.get_by_text("mia@example.com")).to_be_visible()

    app_id = create_android_app(page, name="Runner", package="com.acme.runner")
    expect(page.get_by_text("Created Runner.")).to_be_visible()
    page.get_by_role("link", name="Apps", exact=True).click()
    expect(page.get_by_role("link", name="Runner")).to_have_attribute(
        "href", f"/console/apps/{app_id}/")
    expect(page.get_by_role("row", name="Runner")).to_contain_text("com.acme.runner")
    screenshot("apps-list")


def test_a_visitor_who_logs_out_is_sent_to_the_login_page(page, service):
    sign_up(page, name="Mia Marketer", email="mia@example.com", company="Acme")
    expect(page.get_by_role("heading", name="Apps")).to_be_visible()
    open_menu(page, "mia@example.com").get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()

    page.goto("/console/")
    expect(page).to_have_url("/console/login?next=/console/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)


def test_an_admins_top_bar_keeps_one_line_and_its_menus_open_one_at_a_time(page, service,
                                                                            screenshot):
    sign_up(page, name="Ada Admin", email="ada@example.com", company="Acme")
    create_android_app(page, name="Runner", package="com.acme.runner")
    bar = page.locator("header.top")
    rows = {round(box["y"]) for box in bar.evaluate(
        "(bar) => [...bar.querySelectorAll('.brand, .top-links > *')]"
        ".map((item) => item.getBoundingClientRect())"
        ".map((box) => ({y: box.y + box.height / 2}))")}
    assert len(rows) == 1, f"the top bar wraps at 1280px: item centres at {sorted(rows)}"

    organization = open_menu(page, "Organization")
    for name in ("Members", "Invitations", "Data export", "Audit log", "SSO"):
        expect(organization.get_by_role("link", name=name)).to_be_visible()
    screenshot("top-bar-organization-menu")
    own = open_menu(page, "ada@example.com")
    expect(own.get_by_role("link", name="Two-factor")).to_be_visible()
    expect(organization.get_by_role("link", name="Members")).to_be_hidden()
    page.keyboard.press("Escape")
    expect(own.get_by_role("link", name="Two-factor")).to_be_hidden()
    expect(own.locator("summary")).to_be_focused()

    open_menu(page, "Organization").get_by_role("link", name="Audit log").click()
    expect(page.get_by_role("heading", name="Audit log")).to_be_visible()


def test_another_organizations_app_is_the_not_found_page(page, service):
    other = api_sign_up(service, email="rival@example.org", company="Rival")
    their_app = api_create_app(service, other.token, name="Secret", package="org.rival.secret")
    sign_up(page, name="Mia Marketer", email="mia@example.com", company="Acme")
    expect(page.get_by_role("heading", name="Apps")).to_be_visible()

    for path in (f"/console/apps/{their_app}/", f"/console/apps/{their_app}/settings",
                 f"/console/apps/{their_app}/installs"):
        answer = page.goto(path)
        assert answer.status == 404, path
        expect(page.get_by_role("heading", name="Not found")).to_be_visible()
        expect(page.get_by_text("Secret")).to_have_count(0)
        expect(page.get_by_text("org.rival.secret")).to_have_count(0)


def test_the_login_page_and_the_overview_fit_a_phone(page, service, screenshot):
    account = api_sign_up(service, email="mia@example.com", company="Acme")
    app_id = api_create_app(service, account.token, name="Runner", package="com.acme.runner")
    page.set_viewport_size(PHONE)

    page.goto("/console/login")
    expect(page.get_by_role("button", name="Log in")).to_be_visible()
    assert not body_scrolls_sideways(page)
    screenshot("phone-login")

    log_in(page, account)
    expect(page.get_by_role("heading", name="Apps")).to_be_visible()
    page.goto(f"/console/apps/{app_id}/")
    expect(page.get_by_role("navigation", name="Runner")).to_be_attached()
    assert not body_scrolls_sideways(page)
    screenshot("phone-overview")
