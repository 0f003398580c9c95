"""The console's Invitations and Access tokens pages and the page an invitation link opens
(docs/teams.md): the same rules as the API, secrets shown once, what a user typed shown as
text, and each role offered and refused as the capability table says."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from audit.models import Entry
from teams import invitations
from teams.models import AccessToken, Invitation
from tests.factories import UserFactory
from tests.teams.helpers import PASSWORD, token_of

pytestmark = pytest.mark.django_db

INVITES = "/console/invitations"
TOKENS = "/console/access-tokens"
ACCEPT = "/console/invitations/accept"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def admin_console(owner):
    return logged_in(owner)


@pytest.fixture
def marketer(owner):
    return UserFactory(email="mia@example.com", role="marketer",
                       organization=owner.organization)


def invite_in_console(client, email="new@example.com", role="marketer") -> str:
    """The accept URL the created page shows once."""
    created = client.post(INVITES, {"email": email, "role": role})
    assert created.status_code == 302, created.content
    page = client.get(created.url)
    html = page.content.decode()
    start = html.index('id="accept-url" type="text" value="') + len(
        'id="accept-url" type="text" value="')
    return html[start:html.index('"', start)].replace("&amp;", "&")


def test_an_admin_invites_and_sees_the_link_once(admin_console):
    url = invite_in_console(admin_console)
    assert url.startswith("http://testserver/console/invitations/accept?token=")
    invitation = Invitation.objects.get()
    assert (invitation.email, invitation.role) == ("new@example.com", "marketer")
    again = admin_console.get(f"{INVITES}/{invitation.id}/created").content.decode()
    assert "shown once and is not available again" in again
    assert token_of(url) not in again
    listed = admin_console.get(INVITES).content.decode()
    assert "new@example.com" in listed and token_of(url) not in listed
    assert Entry.objects.get(action="invitations.create").target == str(invitation.id)


def test_a_bad_invitation_form_shows_the_message_beside_the_field(admin_console, outsider):
    bad = admin_console.post(INVITES, {"email": "not an email", "role": "marketer"})
    assert bad.status_code == 400
    assert "Enter a valid email address." in bad.content.decode()
    taken = admin_console.post(INVITES, {"email": outsider.email, "role": "marketer"})
    assert taken.status_code == 409
    assert "An account with this email already exists" in taken.content.decode()
    unknown = admin_console.post(INVITES, {"email": "x@example.com", "role": "owner"})
    assert unknown.status_code == 400
    assert not Invitation.objects.exists()


def test_an_admin_revokes_an_invitation(admin_console):
    invite_in_console(admin_console)
    invitation = Invitation.objects.get()
    revoked = admin_console.post(f"{INVITES}/{invitation.id}/revoke")
    assert revoked.status_code == 302
    assert not Invitation.objects.exists()
    assert Entry.objects.get(action="invitations.revoke").target == str(invitation.id)


@pytest.mark.parametrize("role", ["developer", "marketer", "viewer"])
def test_only_admins_open_the_invitations_page(owner, role):
    person = logged_in(UserFactory(role=role, organization=owner.organization))
    refused = person.get(INVITES)
    assert refused.status_code == 403 and "Not allowed" in refused.content.decode()
    assert person.post(INVITES, {"email": "x@example.com", "role": "admin"}).status_code == 403
    home = person.get("/console/").content.decode()
    assert f'href="{INVITES}"' not in home and f'href="{TOKENS}"' in home
    assert not Invitation.objects.exists()


def test_the_admin_is_offered_both_pages(admin_console):
    home = admin_console.get("/console/").content.decode()
    assert f'href="{INVITES}"' in home and f'href="{TOKENS}"' in home


def test_the_link_opens_a_page_naming_the_organization_email_and_role(admin_console, owner):
    owner.organization.name = "<script>alert(1)</script> Acme"
    owner.organization.save()
    url = invite_in_console(admin_console)
    page = Client().get(url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "Join &lt;script&gt;alert(1)&lt;/script&gt; Acme" in html
    assert "<script>alert(1)" not in html
    assert "new@example.com" in html and "marketer" in html


@pytest.mark.parametrize("query", ["", "?token=made-up"])
def test_a_link_without_a_valid_token_says_so(query):
    page = Client().get(ACCEPT + query)
    assert page.status_code == 400
    html = page.content.decode()
    assert invitations.INVITATION_REFUSED.replace("'", "&#x27;") in html
    assert 'name="password"' not in html


def test_accepting_logs_the_person_in_with_their_role(admin_console, owner):
    url = invite_in_console(admin_console)
    browser = Client()
    joined = browser.post(ACCEPT, {"token": token_of(url), "name": "Nia New",
                                   "password": PASSWORD})
    assert (joined.status_code, joined.url) == (302, "/console/")
    home = browser.get("/console/").content.decode()
    assert "new@example.com" in home and "marketer" in home
    user = User.objects.get(email="new@example.com")
    assert (user.name, user.role, user.organization_id) == ("Nia New", "marketer",
                                                           owner.organization_id)
    assert Entry.objects.get(action="auth.login").changes == {"method": "invitation"}
    used = Client().post(ACCEPT, {"token": token_of(url), "name": "Again",
                                  "password": PASSWORD})
    assert used.status_code == 400


def test_a_weak_password_is_shown_beside_its_field_and_keeps_the_link(admin_console):
    url = invite_in_console(admin_console)
    weak = Client().post(ACCEPT, {"token": token_of(url), "name": "<i>Nia</i>",
                                  "password": "short"})
    assert weak.status_code == 400
    html = weak.content.decode()
    assert "This password is too short" in html
    assert 'value="&lt;i&gt;Nia&lt;/i&gt;"' in html
    assert Invitation.objects.exists()


def test_every_role_makes_a_token_and_sees_it_once(marketer):
    console = logged_in(marketer)
    created = console.post(TOKENS, {"name": "<b>export</b>", "expires_in_days": "30"})
    assert created.status_code == 302
    shown = console.get(created.url).content.decode()
    record = AccessToken.objects.get()
    start = shown.index('id="full-token" type="text" value="') + len(
        'id="full-token" type="text" value="')
    token = shown[start:shown.index('"', start)]
    assert token.startswith(record.prefix) and token.startswith("pat_")
    assert "&lt;b&gt;export&lt;/b&gt;" in shown
    assert token not in console.get(created.url).content.decode()
    listed = console.get(TOKENS).content.decode()
    assert record.prefix in listed and token not in listed
    assert (record.user_id, record.name) == (marketer.id, "<b>export</b>")


def test_a_bad_expiry_is_shown_beside_its_field(marketer):
    refused = logged_in(marketer).post(TOKENS, {"name": "export", "expires_in_days": "400"})
    assert refused.status_code == 400
    assert "Ensure this value is less than or equal to 365." in refused.content.decode()
    assert not AccessToken.objects.exists()


def test_a_person_deletes_their_token_and_not_anothers(marketer, owner):
    console = logged_in(marketer)
    console.post(TOKENS, {"name": "export", "expires_in_days": "30"})
    mine = AccessToken.objects.get()
    theirs = AccessToken.objects.create(user=owner, name="theirs", prefix="pat_x",
                                        token_digest="0" * 64, auth_version=0,
                                        expires_at=mine.expires_at)
    assert console.post(f"{TOKENS}/{theirs.id}/delete").status_code == 404
    assert console.post(f"{TOKENS}/{mine.id}/delete").status_code == 302
    assert list(AccessToken.objects.values_list("name", flat=True)) == ["theirs"]
