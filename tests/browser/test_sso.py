"""Single sign-on in a real browser (docs/teams.md, "Single sign-on"): the login page's "Sign
in with SSO", the provider's own page (oidc-provider-mock, on loopback), and back to the
console as a new member with the organization's default role."""

import pytest
import requests

from accounts.models import User
from tests.browser.helpers import stored
from tests.browser.steps import api_sign_up, expect, open_menu
from tests.signin.helpers import CLIENT_ID, CLIENT_SECRET, mock_provider

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.postgres,
              pytest.mark.django_db(transaction=True)]


def test_a_newcomer_signs_in_with_sso_and_lands_in_the_console(page, service, screenshot):
    admin = api_sign_up(service, email="admin@example.com", company="Acme")
    with mock_provider() as issuer:
        saved = requests.put(service.api("org/sso"), json={
            "issuer": issuer, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
            "allowed_domains": ["example.com"], "default_role": "marketer"},
            headers={"Authorization": f"Bearer {admin.token}"}, timeout=10)
        assert saved.status_code == 200, saved.text
        assert requests.put(f"{issuer}/users/mia", json={
            "email": "mia@example.com", "email_verified": True, "name": "Mia"},
            timeout=10).status_code == 204

        page.goto("/console/login")
        page.get_by_label("Work address").fill("mia@example.com")
        page.get_by_role("button", name="Sign in with SSO").click()
        expect(page.get_by_role("heading", name="Authorize Client")).to_be_visible()
        page.locator("input[name=sub]").fill("mia")
        page.get_by_role("button", name="Authorize").click()

        expect(page.get_by_role("heading", name="Apps")).to_be_visible()
        expect(page.get_by_text("mia@example.com")).to_be_visible()
        screenshot("sso-signed-in")

    person = stored(lambda: User.objects.get(email="mia@example.com"))
    assert (person.role, person.has_usable_password()) == ("marketer", False)


def test_the_sso_and_two_factor_pages_render_within_the_csp(page, service, screenshot):
    admin = api_sign_up(service, email="admin@example.com", company="Acme")
    page.goto("/console/login")
    page.get_by_label("Email").fill(admin.email)
    page.get_by_label("Password").fill(admin.password)
    page.get_by_role("button", name="Log in").click()

    open_menu(page, "Organization").get_by_role("link", name="SSO").click()
    expect(page.get_by_role("heading", name="Single sign-on")).to_be_visible()
    screenshot("sso-settings")
    open_menu(page, admin.email).get_by_role("link", name="Two-factor").click()
    page.get_by_role("button", name="Set up two-factor").click()
    qr = page.get_by_role("img", name="QR code of your two-factor key")
    expect(qr).to_be_visible()
    assert page.evaluate("(img) => img.naturalWidth", qr.element_handle()) > 0
    screenshot("two-factor-enrol")
