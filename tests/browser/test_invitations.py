"""An invitation end to end in Chromium (docs/teams.md, "Invitations"): an admin invites a
marketer from the console and reads the link it shows once; the marketer opens it in a browser
of their own, chooses a name and a password, lands in the console as a marketer, and a page of
the `configure` capability is the not-allowed page for them."""

import pytest

from tests.browser.helpers import DESKTOP, SCREENSHOTS
from tests.browser.steps import api_create_app, api_sign_up, expect, log_in, open_menu

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def test_an_invited_marketer_joins_and_is_refused_configuration(page, browser, service,
                                                                 troubles, screenshot):
    admin = api_sign_up(service, email="ada@example.com", company="Acme")
    app_id = api_create_app(service, admin.token, name="Runner", package="com.acme.runner")

    log_in(page, admin)
    open_menu(page, "Organization").get_by_role("link", name="Invitations").click()
    expect(page.get_by_role("heading", name="Invitations")).to_be_visible()
    page.get_by_label("Email").fill("mia@example.com")
    page.get_by_label("Role").select_option("marketer")
    page.get_by_role("button", name="Invite").click()
    expect(page.get_by_role("heading", name="Invitation created")).to_be_visible()
    link = page.get_by_label("Invitation link for mia@example.com").input_value()
    assert link.startswith(f"{service.url}/console/invitations/accept?token=")
    screenshot("invitation-created")
    page.reload()
    expect(page.get_by_text("shown once and is not available again")).to_be_visible()

    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    try:
        invited = context.new_page()
        troubles.watch(invited)
        invited.goto(link)
        expect(invited.get_by_role("heading", name="Join Acme")).to_be_visible()
        expect(invited.get_by_text("mia@example.com")).to_be_visible()
        invited.get_by_label("Your name").fill("Mia Marketer")
        invited.get_by_label("Password").fill("a long enough password")
        invited.get_by_role("button", name="Join").click()

        expect(invited.get_by_role("heading", name="Apps")).to_be_visible()
        expect(invited.get_by_text("Welcome to Acme: you joined as a marketer.")).to_be_visible()
        account = invited.get_by_role("navigation", name="Account")
        expect(account.get_by_text("mia@example.com")).to_be_visible()
        expect(account.get_by_text("marketer", exact=True)).to_be_visible()
        expect(account.get_by_text("Organization")).to_have_count(0)  # nothing in it is theirs
        own = open_menu(invited, "mia@example.com")
        expect(own.get_by_role("link", name="Access tokens")).to_be_visible()
        expect(own.get_by_role("link", name="Invitations")).to_have_count(0)

        refused = invited.goto(f"{service.url}/console/apps/{app_id}/keys")
        assert refused.status == 403
        expect(invited.get_by_role("heading", name="Not allowed")).to_be_visible()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        invited.screenshot(path=SCREENSHOTS / "invitation-marketer-refused.png",
                           full_page=True)

        used = invited.goto(link)
        assert used.status == 400
        expect(invited.get_by_role("button", name="Join")).to_have_count(0)
    finally:
        context.close()
