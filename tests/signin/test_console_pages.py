"""The console's side (docs/teams.md, "Single sign-on", "Two-factor"): the login's second
step, enrolment at login when the organization requires it, the Two-factor page and the
admins' SSO page."""

import re

import pyotp
import pytest

from audit.models import Entry
from signin.models import SsoConnection, TotpDevice, TwoFactorRule
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"  # tests/factories.py


@pytest.fixture
def person(db):
    return UserFactory(email="pat@example.com", role="viewer")


def enrol_on_the_page(client) -> str:
    """Set up two-factor on the Two-factor page; the seed it showed."""
    assert client.post("/console/two-factor", {"action": "enrol"}).status_code == 302
    page = client.get("/console/two-factor").content.decode()
    assert 'src="data:image/svg+xml' in page
    secret = re.search(r"<code>([A-Z2-7]+)</code>", page).group(1)
    done = client.post("/console/two-factor", {"action": "confirm",
                                               "otp": pyotp.TOTP(secret).now()})
    assert done.status_code == 302 and done["Location"] == "/console/two-factor/codes"
    return secret


def test_enrolling_on_the_page_shows_the_recovery_codes_once(client, person):
    client.force_login(person)

    enrol_on_the_page(client)
    codes = client.get("/console/two-factor/codes").content.decode()
    again = client.get("/console/two-factor/codes").content.decode()

    assert len(re.findall(r"<li><code>[a-z2-9-]{19}</code></li>", codes)) == 10
    assert "shown already" in again
    assert "Two-factor is on" in client.get("/console/two-factor").content.decode()


def test_a_wrong_code_on_the_page_is_shown_beside_the_field(client, person):
    client.force_login(person)
    client.post("/console/two-factor", {"action": "enrol"})

    response = client.post("/console/two-factor", {"action": "confirm", "otp": "12ab56"})

    assert response.status_code == 400
    assert "six digits" in response.content.decode() or "6 digits" in response.content.decode()
    assert TotpDevice.objects.get(user=person).confirmed_at is None


def test_the_login_asks_for_a_code_in_a_second_step(client, person):
    client.force_login(person)
    secret = enrol_on_the_page(client)
    client.logout()
    TotpDevice.objects.filter(user=person).update(last_step=None)

    first = client.post("/console/login", {"email": person.email, "password": PASSWORD})
    assert first.status_code == 302 and first["Location"] == "/console/login/code"
    assert client.session.get("_auth_user_id") is None
    wrong = client.post("/console/login/code", {"otp": "000000"})
    assert wrong.status_code == 401 and client.session.get("_auth_user_id") is None
    right = client.post("/console/login/code", {"otp": pyotp.TOTP(secret).now()})

    assert right.status_code == 302
    assert client.session.get("_auth_user_id") == str(person.id)
    actions = list(Entry.objects.filter(action__startswith="auth.")
                   .order_by("id").values_list("action", flat=True))
    assert actions == ["auth.login_failed", "auth.login"]


def test_the_second_step_without_a_password_first_goes_back_to_the_login(client, person):
    response = client.post("/console/login/code", {"otp": "123456"})

    assert response.status_code == 302 and response["Location"] == "/console/login"


def test_a_required_organization_enrols_at_login(client, person):
    TwoFactorRule.objects.create(organization_id=person.organization_id, required=True)

    first = client.post("/console/login", {"email": person.email, "password": PASSWORD})
    assert first.status_code == 302 and first["Location"] == "/console/login/enrol"
    page = client.get("/console/login/enrol").content.decode()
    assert client.session.get("_auth_user_id") is None
    secret = re.search(r"<code>([A-Z2-7]+)</code>", page).group(1)
    done = client.post("/console/login/enrol", {"otp": pyotp.TOTP(secret).now()})

    assert done.status_code == 302 and done["Location"] == "/console/two-factor/codes"
    assert client.session.get("_auth_user_id") == str(person.id)
    assert TotpDevice.objects.get(user=person).confirmed_at is not None


def test_the_sso_page_saves_the_settings_and_keeps_the_secret(client):
    admin = UserFactory(email="admin@example.com", role="admin")
    client.force_login(admin)
    form = {"action": "save", "issuer": "https://idp.example.com", "client_id": "console",
            "client_secret": "s3cret-value", "allowed_domains": "example.com example.org",
            "default_role": "marketer", "enforce": "on"}

    assert client.post("/console/sso", form).status_code == 302
    page = client.get("/console/sso").content.decode()
    assert "A secret is set" in page and "s3cret-value" not in page
    assert client.post("/console/sso", {**form, "client_secret": ""}).status_code == 302
    connection = SsoConnection.objects.get(organization_id=admin.organization_id)
    assert (connection.enforce, connection.default_role) == (True, "marketer")
    assert sorted(connection.domains.values_list("domain", flat=True)) == [
        "example.com", "example.org"]
    assert client.post("/console/sso", {**form, "issuer": "ftp://x"}).status_code == 400
    assert client.post("/console/sso", {"action": "require", "required": "on"}
                       ).status_code == 302
    assert TwoFactorRule.objects.get(organization_id=admin.organization_id).required


def test_the_sso_page_is_for_admins(client, person):
    client.force_login(person)

    assert client.get("/console/sso").status_code == 403


def test_the_login_page_offers_sso_and_the_nav_links_the_pages(client, person):
    assert "Sign in with SSO" in client.get("/console/login").content.decode()
    client.force_login(person)
    nav = client.get("/console/").content.decode()
    assert 'href="/console/two-factor"' in nav and 'href="/console/sso"' not in nav
