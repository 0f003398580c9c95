"""/api/v1/org/invitations and /api/v1/auth/invitations/accept (docs/teams.md,
"Invitations"): each rule and each bad input through HTTP, status, body and rows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import User
from audit.models import Entry
from teams import invitations
from teams.models import Invitation
from tests.factories import UserFactory
from tests.helpers import client_for
from tests.teams.helpers import (
    ACCEPT,
    INVITATIONS,
    PASSWORD,
    clock_moved,
    invite,
    token_of,
)

pytestmark = pytest.mark.django_db

REFUSAL = {"code": "VALIDATION_ERROR", "message": invitations.INVITATION_REFUSED,
           "details": {"token": [invitations.INVITATION_REFUSED]}}


def accept(api, token, name="Mia Marketer", password=PASSWORD, **extra):
    return api.post(ACCEPT, {"token": token, "name": name, "password": password},
                    format="json", **extra)


def test_an_admin_invites_and_gets_the_link_once(owner_api, owner):
    response = owner_api.post(INVITATIONS, {"email": "Mia@Example.com", "role": "marketer"},
                              format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert set(data) == {"invitation", "accept_url", "emailed"}
    assert data["emailed"] is False  # no EMAIL_HOST: the product's default
    invitation = data["invitation"]
    assert set(invitation) == {"id", "email", "role", "invited_by", "created_at", "expires_at"}
    assert (invitation["email"], invitation["role"], invitation["invited_by"]) == (
        "mia@example.com", "marketer", owner.email)
    assert data["accept_url"].startswith(
        "http://testserver/console/invitations/accept?token=")
    stored = Invitation.objects.get()
    assert str(stored.id) == invitation["id"]
    assert stored.expires_at - stored.created_at == timedelta(days=7)
    assert token_of(data["accept_url"]) not in stored.token_digest

    listed = owner_api.get(INVITATIONS).json()["data"]["invitations"]
    assert listed == [invitation]
    assert "token" not in str(listed) and "accept_url" not in str(listed)


def test_the_invitation_is_in_the_audit_log_without_its_link(owner_api):
    data = invite(owner_api, "mia@example.com")
    entry = Entry.objects.get(action="invitations.create")
    assert entry.target == data["invitation"]["id"]
    assert entry.changes == {"email": "mia@example.com", "role": "marketer"}


@pytest.mark.parametrize(("body", "field"), [
    ({"role": "marketer"}, "email"),
    ({"email": "not an email", "role": "marketer"}, "email"),
    ({"email": 7, "role": "marketer"}, "email"),
    ({"email": "mia@example.com"}, "role"),
    ({"email": "mia@example.com", "role": "owner"}, "role"),
    ({"email": "mia@example.com", "role": "marketer", "expires": 3}, "expires"),
])
def test_a_bad_invitation_is_a_validation_error_naming_the_field(owner_api, body, field):
    response = owner_api.post(INVITATIONS, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["details"]
    assert not Invitation.objects.exists()


def test_a_registered_email_is_a_conflict(owner_api, outsider):
    response = owner_api.post(INVITATIONS, {"email": outsider.email, "role": "viewer"},
                              format="json")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "CONFLICT", "message": invitations.EMAIL_REGISTERED,
        "details": {"email": [invitations.EMAIL_REGISTERED]}}
    assert not Invitation.objects.exists()


def test_inviting_again_replaces_the_pending_invitation(owner_api, api):
    first = invite(owner_api, "mia@example.com", "viewer")
    second = invite(owner_api, "mia@example.com", "developer")
    listed = owner_api.get(INVITATIONS).json()["data"]["invitations"]
    assert [(i["id"], i["role"]) for i in listed] == [(second["invitation"]["id"], "developer")]
    assert accept(api, token_of(first["accept_url"])).status_code == 400


@pytest.mark.parametrize("role", ["developer", "marketer", "viewer"])
def test_only_admins_handle_invitations(owner, owner_api, role):
    pending = invite(owner_api, "mia@example.com")["invitation"]
    person = client_for(UserFactory(role=role, organization=owner.organization))
    refused = [person.get(INVITATIONS),
               person.post(INVITATIONS, {"email": "x@example.com", "role": "admin"},
                           format="json"),
               person.delete(f"{INVITATIONS}/{pending['id']}")]
    assert [r.status_code for r in refused] == [403, 403, 403]
    assert all(r.json()["error"]["code"] == "FORBIDDEN" for r in refused)
    assert Invitation.objects.count() == 1


def test_an_admin_revokes_and_the_link_stops(owner_api, api):
    data = invite(owner_api, "mia@example.com")
    response = owner_api.delete(f"{INVITATIONS}/{data['invitation']['id']}")
    assert response.status_code == 200
    assert owner_api.get(INVITATIONS).json()["data"]["invitations"] == []
    refused = accept(api, token_of(data["accept_url"]))
    assert (refused.status_code, refused.json()["error"]) == (400, REFUSAL)
    assert owner_api.delete(f"{INVITATIONS}/{data['invitation']['id']}").status_code == 404


def test_another_organizations_invitation_is_not_found(owner_api, outsider):
    theirs = invite(client_for(outsider), "mia@example.com")["invitation"]
    assert owner_api.delete(f"{INVITATIONS}/{theirs['id']}").status_code == 404
    assert owner_api.get(INVITATIONS).json()["data"]["invitations"] == []
    assert Invitation.objects.count() == 1


def test_accepting_joins_with_the_role_and_answers_as_a_login(owner_api, owner, api):
    link = invite(owner_api, "mia@example.com", "marketer")["accept_url"]
    response = accept(api, token_of(link), REMOTE_ADDR="192.0.2.7")
    assert response.status_code == 201
    data = response.json()["data"]
    assert set(data) == {"token", "user"}
    assert (data["user"]["email"], data["user"]["role"], data["user"]["org_id"]) == (
        "mia@example.com", "marketer", str(owner.organization_id))
    me = api.get("/api/v1/auth/me", HTTP_AUTHORIZATION=f"Bearer {data['token']}")
    assert me.json()["data"]["role"] == "marketer"
    assert not Invitation.objects.exists()
    login = Entry.objects.get(action="auth.login")
    assert (login.actor_email, login.changes, login.ip, login.organization_id) == (
        "mia@example.com", {"method": "invitation"}, "192.0.2.7", owner.organization_id)


def test_a_used_token_is_refused(owner_api, api):
    token = token_of(invite(owner_api, "mia@example.com")["accept_url"])
    assert accept(api, token).status_code == 201
    again = accept(api, token, name="Someone else", password="another long password")
    assert (again.status_code, again.json()["error"]) == (400, REFUSAL)
    assert User.objects.filter(email="mia@example.com").count() == 1


def test_an_expired_token_is_refused_when_the_clock_has_moved(owner_api, api, monkeypatch):
    token = token_of(invite(owner_api, "mia@example.com")["accept_url"])
    clock_moved(monkeypatch, timedelta(days=7, seconds=1))
    refused = accept(api, token)
    assert (refused.status_code, refused.json()["error"]) == (400, REFUSAL)
    assert not User.objects.filter(email="mia@example.com").exists()


def test_an_unknown_token_is_refused(api):
    refused = accept(api, "made-up-token")
    assert (refused.status_code, refused.json()["error"]) == (400, REFUSAL)


def test_an_email_registered_since_is_a_conflict_at_acceptance(owner_api, api, outsider):
    token = token_of(invite(owner_api, "mia@example.com")["accept_url"])
    UserFactory(email="mia@example.com")
    response = accept(api, token)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"


@pytest.mark.parametrize(("body", "field"), [
    ({"name": "Mia", "password": PASSWORD}, "token"),
    ({"token": "x", "password": PASSWORD}, "name"),
    ({"token": "x", "name": "Mia"}, "password"),
    ({"token": "x", "name": "Mia", "password": 12345678}, "password"),
])
def test_a_bad_acceptance_is_a_validation_error_naming_the_field(api, body, field):
    response = api.post(ACCEPT, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_a_weak_password_is_refused_and_the_link_still_works(owner_api, api):
    token = token_of(invite(owner_api, "mia@example.com")["accept_url"])
    weak = accept(api, token, password="short")
    assert weak.status_code == 400 and "password" in weak.json()["error"]["details"]
    assert accept(api, token).status_code == 201


def test_guessing_tokens_is_limited_like_logging_in(owner_api, api, settings):
    settings.LOGIN_RATE_LIMIT_PER_ADDRESS = "3/15m"
    token = token_of(invite(owner_api, "mia@example.com")["accept_url"])
    guesses = [accept(api, f"guess-{n}").status_code for n in range(3)]
    assert guesses == [400, 400, 400]
    limited = accept(api, token)
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
    assert not User.objects.filter(email="mia@example.com").exists()
    login = api.post("/api/v1/auth/login", {"email": "owner@example.com",
                                            "password": "wrong password"}, format="json")
    assert login.status_code == 429  # one allowance for logins and acceptances


def test_the_expired_invitations_are_not_listed_before_beat_prunes_them(owner_api,
                                                                         monkeypatch):
    invite(owner_api, "mia@example.com")
    clock_moved(monkeypatch, timedelta(days=8))
    assert owner_api.get(INVITATIONS).json()["data"]["invitations"] == []
    from teams.tasks import prune

    prune()
    assert not Invitation.objects.exists()
