"""/api/v1/auth/tokens and `Authorization: Bearer pat_…` (docs/teams.md, "Personal access
tokens"): made by every role, shown once, listed without the secret, acting as the person with
their current role, and refused once deleted, expired, after a role change or a removal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from accounts.authentication import TOKEN_DETAILS, TOKEN_REFUSED
from audit.models import Entry
from teams.models import AccessToken
from tests.factories import UserFactory
from tests.helpers import client_for
from tests.teams.helpers import TOKENS, clock_moved, make_token

pytestmark = pytest.mark.django_db

REFUSED = {"code": "UNAUTHORIZED", "message": TOKEN_REFUSED, "details": TOKEN_DETAILS}
MEMBERS = "/api/v1/org/members"


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def marketer(owner):
    return UserFactory(email="mia@example.com", role="marketer",
                       organization=owner.organization)


@pytest.fixture
def marketer_api(marketer):
    return client_for(marketer)


@pytest.mark.parametrize("role", ["admin", "developer", "marketer", "viewer"])
def test_every_role_makes_a_token_shown_once(owner, role):
    person = client_for(UserFactory(role=role, organization=owner.organization))
    response = person.post(TOKENS, {"name": "nightly export", "expires_in_days": 30},
                           format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert set(data) == {"access_token", "token"}
    assert data["token"].startswith("pat_")
    assert set(data["access_token"]) == {"id", "name", "prefix", "created_at", "expires_at",
                                         "last_used_at"}
    assert data["token"].startswith(data["access_token"]["prefix"])
    assert data["access_token"]["last_used_at"] is None


def test_the_list_shows_the_callers_own_tokens_never_the_token(marketer_api, owner_api):
    mine = make_token(marketer_api, "mine")
    make_token(owner_api, "the owner's")
    listed = marketer_api.get(TOKENS)
    assert listed.status_code == 200
    tokens = listed.json()["data"]["access_tokens"]
    assert tokens == [mine["access_token"]]
    assert mine["token"] not in listed.content.decode()


def test_without_expires_in_days_a_token_lasts_ninety_days(marketer_api):
    made = make_token(marketer_api)
    stored = AccessToken.objects.get()
    assert stored.expires_at - stored.created_at == timedelta(days=90)
    assert made["access_token"]["id"] == str(stored.id)


@pytest.mark.parametrize(("body", "field"), [
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 101}, "name"),
    ({"name": "export", "expires_in_days": 0}, "expires_in_days"),
    ({"name": "export", "expires_in_days": 366}, "expires_in_days"),
    ({"name": "export", "expires_in_days": "30"}, "expires_in_days"),
    ({"name": "export", "expires_in_days": 1.5}, "expires_in_days"),
    ({"name": "export", "scopes": ["read"]}, "scopes"),
])
def test_a_bad_token_request_is_a_validation_error_naming_the_field(marketer_api, body, field):
    response = marketer_api.post(TOKENS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not AccessToken.objects.exists()


def test_a_token_acts_as_its_person_with_their_role(marketer_api, marketer, app):
    token = make_token(marketer_api)["token"]
    script = bearer(token)
    me = script.get("/api/v1/auth/me")
    assert me.status_code == 200
    assert (me.json()["data"]["email"], me.json()["data"]["role"]) == (marketer.email,
                                                                      "marketer")
    assert script.get("/api/v1/apps").status_code == 200
    refused = script.get(MEMBERS)  # a marketer's token holds no more than a marketer
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "FORBIDDEN")


def test_a_changed_role_ends_the_token(owner_api, marketer_api, marketer):
    token = make_token(marketer_api)["token"]
    assert owner_api.patch(f"{MEMBERS}/{marketer.id}", {"role": "admin"},
                           format="json").status_code == 200
    refused = bearer(token).get("/api/v1/auth/me")
    assert (refused.status_code, refused.json()["error"]) == (401, REFUSED)
    assert bearer(token).get(MEMBERS).status_code == 401  # not the admin it would now be


def test_a_removed_member_loses_their_tokens(owner_api, marketer_api, marketer):
    token = make_token(marketer_api)["token"]
    assert owner_api.delete(f"{MEMBERS}/{marketer.id}").status_code == 200
    assert not AccessToken.objects.exists()
    refused = bearer(token).get("/api/v1/auth/me")
    assert (refused.status_code, refused.json()["error"]) == (401, REFUSED)


def test_a_deleted_token_is_refused(marketer_api):
    made = make_token(marketer_api)
    deleted = marketer_api.delete(f"{TOKENS}/{made['access_token']['id']}")
    assert deleted.status_code == 200
    assert marketer_api.get(TOKENS).json()["data"]["access_tokens"] == []
    refused = bearer(made["token"]).get("/api/v1/auth/me")
    assert (refused.status_code, refused.json()["error"]) == (401, REFUSED)


def test_a_token_of_someone_else_cannot_be_deleted(marketer_api, owner_api):
    theirs = make_token(owner_api)["access_token"]
    assert marketer_api.delete(f"{TOKENS}/{theirs['id']}").status_code == 404
    assert AccessToken.objects.count() == 1


def test_an_expired_token_is_refused_when_the_clock_has_moved(marketer_api, monkeypatch):
    token = make_token(marketer_api, expires_in_days=1)["token"]
    assert bearer(token).get("/api/v1/auth/me").status_code == 200
    clock_moved(monkeypatch, timedelta(days=1, seconds=1))
    refused = bearer(token).get("/api/v1/auth/me")
    assert (refused.status_code, refused.json()["error"]) == (401, REFUSED)


def test_a_made_up_token_gets_the_same_answer_as_a_bad_jwt():
    made_up = bearer("pat_made-up").get("/api/v1/auth/me")
    bad_jwt = bearer("eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl").get("/api/v1/auth/me")
    assert made_up.status_code == bad_jwt.status_code == 401
    assert made_up.json() == bad_jwt.json()


def test_last_use_is_recorded(marketer_api):
    made = make_token(marketer_api)
    bearer(made["token"]).get("/api/v1/auth/me")
    listed = marketer_api.get(TOKENS).json()["data"]["access_tokens"]
    assert listed[0]["last_used_at"] is not None


def test_a_token_used_from_a_new_address_is_in_the_audit_log(marketer_api, marketer):
    script = bearer(make_token(marketer_api)["token"])
    script.get("/api/v1/apps", REMOTE_ADDR="192.0.2.1")
    script.get("/api/v1/apps", REMOTE_ADDR="198.51.100.9")
    entry = Entry.objects.get(action="auth.token_new_ip")
    assert (entry.actor_id, entry.ip) == (marketer.id, "198.51.100.9")
    assert entry.changes == {"credential": "personal_access_token",
                             "earlier_ips": ["192.0.2.1"]}


def test_making_and_deleting_tokens_is_in_the_audit_log_without_the_token(marketer_api):
    made = make_token(marketer_api, "export", expires_in_days=7)
    marketer_api.delete(f"{TOKENS}/{made['access_token']['id']}")
    created = Entry.objects.get(action="access_tokens.create")
    assert created.target == made["access_token"]["id"]
    assert created.changes == {"name": "export", "expires_in_days": 7}
    assert Entry.objects.get(action="access_tokens.delete").target == made["access_token"]["id"]
    assert not Entry.objects.filter(changes__icontains=made["token"]).exists()


def test_a_token_cannot_make_tokens_but_lists_and_deletes_them(marketer_api):
    made = make_token(marketer_api, "script")
    script = bearer(made["token"])

    refused = script.post(TOKENS, {"name": "longer", "expires_in_days": 365}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "FORBIDDEN"
    assert "cannot make access tokens" in refused.json()["error"]["message"]
    assert AccessToken.objects.count() == 1
    assert [t["name"] for t in script.get(TOKENS).json()["data"]["access_tokens"]] == ["script"]
    assert script.delete(f"{TOKENS}/{made['access_token']['id']}").status_code == 200
    assert AccessToken.objects.count() == 0


def test_a_token_cannot_enrol_confirm_or_switch_off_two_factor(marketer_api, marketer):
    script = bearer(make_token(marketer_api)["token"])
    assert script.get("/api/v1/auth/otp").status_code == 200  # reading is fine
    for method, path, body in (("post", "/api/v1/auth/otp/enrol", None),
                               ("post", "/api/v1/auth/otp/confirm", {"otp": "123456"}),
                               ("delete", "/api/v1/auth/otp", {"password": "x"})):
        refused = getattr(script, method)(path, body, format="json")
        assert refused.status_code == 403, path
        assert "change two-factor" in refused.json()["error"]["message"], path
    marketer.refresh_from_db()
    assert marketer_api.get("/api/v1/auth/otp").json()["data"]["two_factor"]["enabled"] is False
