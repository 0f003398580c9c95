"""Sign-up, log-in and log-out pages: the API's accounts and password rules behind a session,
the API's login throttle shared, CSRF on every form, and / leading to the console."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

SIGNUP = {"name": "Ada", "email": "ada@example.com", "password": "long-enough-pw",
          "company_name": "Acme"}


def test_root_sends_a_visitor_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/console/login"


def test_root_sends_a_logged_in_user_to_the_console(console):
    response = console.get("/")
    assert response["Location"] == "/console/"


def test_console_pages_ask_a_visitor_to_log_in_first(client, app):
    response = client.get(f"/console/apps/{app.id}/settings")
    assert response.status_code == 302
    assert response["Location"] == f"/console/login?next=/console/apps/{app.id}/settings"


@pytest.mark.parametrize("gone", ["deleted", "deactivated"])
def test_the_session_of_a_user_gone_since_is_sent_to_log_in_again(console, owner, gone):
    # The console's equivalent of a refused token: no error page, no internals, a login form.
    if gone == "deleted":
        owner.delete()
    else:
        User.objects.filter(id=owner.id).update(is_active=False)
    response = console.get("/console/")
    assert response.status_code == 302
    assert response["Location"] == "/console/login?next=/console/"
    page = console.get(response["Location"])
    assert page.status_code == 200 and 'name="password"' in page.content.decode()


def test_a_cookie_that_is_not_a_session_is_sent_to_log_in(client):
    client.cookies["sessionid"] = "eyJhbGciOiJIUzI1NiJ9.forged.value"
    response = client.get("/console/")
    assert response.status_code == 302
    assert response["Location"] == "/console/login?next=/console/"


def test_signing_up_creates_an_organization_and_logs_in(client):
    response = client.post("/console/signup", SIGNUP)
    assert response.status_code == 302
    user = User.objects.get(email="ada@example.com")
    assert user.organization.name == "Acme"
    assert user.role == User.Role.ADMIN
    assert client.get("/console/").status_code == 200


def test_sign_up_shows_the_password_rule_beside_the_field(client):
    response = client.post("/console/signup", {**SIGNUP, "password": "short"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_password"' in html
    assert "at least 8 characters" in html
    assert 'value="ada@example.com"' in html  # what was typed stays, except the password
    assert "short" not in html.split('id="id_password"')[1].split(">")[0]
    assert not User.objects.exists()


def test_sign_up_with_a_taken_email_says_so(client, owner):
    response = client.post("/console/signup", {**SIGNUP, "email": owner.email})
    assert response.status_code == 409
    assert "An account with this email already exists." in response.content.decode()


def test_sign_up_lists_every_missing_field(client):
    response = client.post("/console/signup", {})
    html = response.content.decode()
    assert response.status_code == 400
    for field in ("name", "email", "password", "company_name"):
        assert f'id="err_{field}"' in html
    # The banner names the fields as the form labels them, not as the API does.
    assert ("Please check Your name, Email, Password, Company: see the message beside each "
            "field.") in html
    assert "company_name" not in html.split('role="alert"', 1)[1].split("</div>", 1)[0]


def test_logging_in_goes_to_the_page_asked_for(client, owner, app):
    response = client.post(f"/console/login?next=/console/apps/{app.id}/settings",
                           {"email": owner.email, "password": "correct horse battery"})
    assert response.status_code == 302
    assert response["Location"] == f"/console/apps/{app.id}/settings"


def test_login_never_redirects_to_another_site(client, owner):
    response = client.post("/console/login?next=https://evil.example/",
                           {"email": owner.email, "password": "correct horse battery"})
    assert response["Location"] == "/console/"


def test_a_wrong_password_gets_one_message_for_both_fields(client, owner):
    response = client.post("/console/login", {"email": owner.email, "password": "wrong-one"})
    assert response.status_code == 401
    assert "Invalid email or password." in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_logins_on_the_console_and_the_api_share_one_throttle(client, api, owner, settings):
    settings.LOGIN_RATE_LIMIT = "3/15m"
    wrong = {"email": owner.email, "password": "wrong-one"}
    for _ in range(2):
        assert api.post("/api/v1/auth/login", wrong, format="json").status_code == 401
    assert client.post("/console/login", wrong).status_code == 401
    response = client.post("/console/login", {**wrong, "password": "correct horse battery"})
    assert response.status_code == 429
    assert "Too many login attempts" in response.content.decode()
    assert api.post("/api/v1/auth/login", wrong, format="json").status_code == 429


def test_logging_out_ends_the_session(console):
    assert console.post("/console/logout").status_code == 302
    assert console.get("/console/").status_code == 302


def test_forms_refuse_a_post_without_the_csrf_token(owner):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/console/login", {"email": owner.email,
                                               "password": "correct horse battery"})
    assert response.status_code == 403
    page = browser.get("/console/login")
    token = page.cookies["csrftoken"].value
    response = browser.post("/console/login", {"email": owner.email,
                                               "password": "correct horse battery",
                                               "csrfmiddlewaretoken": token})
    assert response.status_code == 302


def test_the_jwt_api_is_unchanged_by_a_console_session(console):
    # A session cookie is not an API credential: the API still asks for a bearer token.
    assert console.get("/api/v1/apps").status_code == 401


def test_console_pages_carry_a_policy_without_inline_scripts(client):
    policy = client.get("/console/login")["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_a_page_outside_the_api_that_does_not_exist_is_an_html_404(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    api_response = client.get("/api/v1/no-such-endpoint")
    assert api_response.json()["error"]["code"] == "NOT_FOUND"
