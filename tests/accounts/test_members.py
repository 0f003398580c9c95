"""An organization's members (docs/teams.md, "Members"): the list, a role changed, a person
removed, the last admin kept; a changed or removed person's JWT and console session stop on
their next request; `member_join`, the one way into an existing organization."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import services
from accounts.members import LAST_ADMIN
from accounts.models import User
from attribution_site.api.exceptions import Conflict, ValidationFailed
from tests.factories import UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

MEMBERS = "/api/v1/org/members"
ME = "/api/v1/auth/me"


def member_url(person) -> str:
    return f"{MEMBERS}/{person.id}"


@pytest.fixture
def viewer(owner):
    return UserFactory(email="viewer@example.com", role=User.Role.VIEWER,
                       organization=owner.organization)


def test_an_admin_lists_the_organizations_members_only(owner_api, owner, viewer, outsider):
    response = owner_api.get(MEMBERS)
    assert response.status_code == 200
    listed = response.json()["data"]["members"]
    assert [(m["email"], m["role"]) for m in listed] == [
        (owner.email, "admin"), ("viewer@example.com", "viewer")]
    assert set(listed[0]) == {"id", "email", "name", "role", "joined_at"}


@pytest.mark.parametrize("role", ["developer", "marketer", "viewer"])
def test_only_admins_handle_members(owner, viewer, role):
    person = client_for(UserFactory(role=role, organization=owner.organization))
    refused = [person.get(MEMBERS), person.patch(member_url(viewer), {"role": "admin"},
                                                   format="json"),
               person.delete(member_url(viewer))]
    assert [r.status_code for r in refused] == [403, 403, 403]
    assert refused[0].json()["error"]["message"].startswith("Only an organization's admins")
    assert User.objects.get(pk=viewer.pk).role == "viewer"


def test_an_admin_changes_a_role(owner_api, viewer):
    response = owner_api.patch(member_url(viewer), {"role": "marketer"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["member"]["role"] == "marketer"
    assert User.objects.get(pk=viewer.pk).role == "marketer"


def test_an_unknown_role_is_a_validation_error(owner_api, viewer):
    response = owner_api.patch(member_url(viewer), {"role": "owner"}, format="json")
    assert response.status_code == 400
    assert "role" in response.json()["error"]["details"]


def test_another_organizations_member_is_not_found(owner_api, outsider):
    assert owner_api.patch(member_url(outsider), {"role": "viewer"},
                           format="json").status_code == 404
    assert owner_api.delete(member_url(outsider)).status_code == 404
    assert User.objects.get(pk=outsider.pk).role == "admin"


def test_the_last_admin_is_neither_demoted_nor_removed(owner_api, owner, viewer):
    demoted = owner_api.patch(member_url(owner), {"role": "developer"}, format="json")
    removed = owner_api.delete(member_url(owner))
    assert (demoted.status_code, removed.status_code) == (409, 409)
    assert demoted.json()["error"] == {"code": "CONFLICT", "message": LAST_ADMIN, "details": {}}
    assert User.objects.get(pk=owner.pk).role == "admin"


def test_with_a_second_admin_the_first_may_step_down(owner_api, owner, viewer):
    owner_api.patch(member_url(viewer), {"role": "admin"}, format="json")
    assert owner_api.patch(member_url(owner), {"role": "viewer"},
                           format="json").status_code == 200
    assert User.objects.get(pk=owner.pk).role == "viewer"


def test_a_removed_members_token_stops_on_the_next_request(owner_api, viewer):
    theirs = client_for(viewer)
    assert theirs.get(ME).status_code == 200
    assert owner_api.delete(member_url(viewer)).json()["data"] == {"success": True}
    assert not User.objects.filter(pk=viewer.pk).exists()
    refused = theirs.get(ME)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "UNAUTHORIZED"


def test_a_demoted_members_token_and_session_stop_and_a_new_login_carries_the_new_role(
        owner_api, owner):
    developer = UserFactory(email="dev@example.com", role=User.Role.DEVELOPER,
                            organization=owner.organization)
    theirs = client_for(developer)
    browser = Client()
    browser.force_login(developer, backend="django.contrib.auth.backends.ModelBackend")
    assert browser.get("/console/").status_code == 200
    owner_api.patch(member_url(developer), {"role": "viewer"}, format="json")
    assert theirs.get(ME).status_code == 401
    assert browser.get("/console/").status_code == 302  # to the login page
    again = client_for(User.objects.get(pk=developer.pk))
    assert again.get(ME).json()["data"]["role"] == "viewer"


def test_the_same_role_again_ends_no_session(owner_api, viewer):
    theirs = client_for(viewer)
    owner_api.patch(member_url(viewer), {"role": "viewer"}, format="json")
    assert theirs.get(ME).status_code == 200


def test_an_operators_session_from_before_the_upgrade_still_verifies(owner):
    """Version 0 hashes as Django does: sessions open when the upgrade lands stay open."""
    from django.contrib.auth.base_user import AbstractBaseUser

    assert owner.auth_version == 0
    assert owner.get_session_auth_hash() == AbstractBaseUser.get_session_auth_hash(owner)


def test_me_shows_the_callers_role(owner):
    marketer = UserFactory(role=User.Role.MARKETER, organization=owner.organization)
    assert client_for(marketer).get(ME).json()["data"]["role"] == "marketer"


# --- member_join ------------------------------------------------------------------------------

def test_a_person_joins_an_organization_with_a_role(owner):
    person = services.member_join(organization_id=owner.organization_id,
                                  email="New@Example.com", name="New", password="s3cret-pass",
                                  role="marketer")
    stored = User.objects.get(pk=person.pk)
    assert (stored.email, stored.role, stored.organization_id) == (
        "new@example.com", "marketer", owner.organization_id)
    assert stored.check_password("s3cret-pass")
    assert client_for(stored).get(ME).json()["data"]["role"] == "marketer"


def test_without_a_password_the_person_has_none_to_log_in_with(owner):
    person = services.member_join(organization_id=owner.organization_id,
                                  email="sso@example.com", name="", password=None,
                                  role="viewer")
    assert not person.has_usable_password()


def test_a_registered_email_is_a_conflict_whatever_the_case(owner):
    with pytest.raises(Conflict):
        services.member_join(organization_id=owner.organization_id, email=owner.email.upper(),
                             name="", password=None, role="viewer")


@pytest.mark.parametrize(("password", "role"), [("short", "viewer"), (None, "owner"),
                                                (None, "member")])
def test_a_weak_password_or_an_unknown_role_is_refused(owner, password, role):
    with pytest.raises(ValidationFailed):
        services.member_join(organization_id=owner.organization_id, email="x@example.com",
                             name="", password=password, role=role)
    assert not User.objects.filter(email="x@example.com").exists()


def test_the_upgrade_makes_every_member_a_developer(owner):
    """accounts 0002: `member` held what `developer` holds, so members lose nothing."""
    from importlib import import_module

    from django.apps import apps

    upgrade = import_module("accounts.migrations.0002_roles_and_auth_version")
    old = UserFactory(organization=owner.organization)
    User.objects.filter(pk=old.pk).update(role="member")
    upgrade.members_become_developers(apps, None)
    assert User.objects.get(pk=old.pk).role == "developer"
    assert User.objects.get(pk=owner.pk).role == "admin"
