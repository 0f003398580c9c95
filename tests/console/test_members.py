"""The console's members page (docs/teams.md, "Members"): an admin sees the people and their
roles, changes a role, removes a person, and is kept from leaving no admin; other roles get the
not-allowed page, and the navigation offers only what a role opens."""

from __future__ import annotations

import pytest

from accounts.members import LAST_ADMIN
from accounts.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PAGE = "/console/members"


@pytest.fixture
def viewer(owner):
    return UserFactory(email="viewer@example.com", name="<b>Vee</b>", role=User.Role.VIEWER,
                       organization=owner.organization)


def test_an_admin_sees_the_members_and_their_roles(console, viewer, outsider):
    html = console.get(PAGE).content.decode()
    assert "viewer@example.com" in html and "&lt;b&gt;Vee&lt;/b&gt;" in html
    assert outsider.email not in html
    assert 'href="/console/members"' in html


def test_an_admin_changes_a_role_and_removes_a_member(console, viewer):
    changed = console.post(PAGE, {"action": "role", "member_id": viewer.id, "role": "developer"})
    assert changed.status_code == 302
    assert User.objects.get(pk=viewer.pk).role == "developer"
    console.post(PAGE, {"action": "remove", "member_id": viewer.id})
    assert not User.objects.filter(pk=viewer.pk).exists()


def test_the_last_admin_is_kept(console, owner):
    response = console.post(PAGE, {"action": "role", "member_id": owner.id, "role": "viewer"})
    assert response.status_code == 409
    assert LAST_ADMIN.replace("'", "&#x27;") in response.content.decode()
    assert User.objects.get(pk=owner.pk).role == "admin"


def test_another_organizations_member_is_untouched(console, outsider):
    response = console.post(PAGE, {"action": "remove", "member_id": outsider.id})
    assert response.status_code == 404
    assert User.objects.filter(pk=outsider.pk).exists()


@pytest.mark.parametrize("role", ["developer", "marketer", "viewer"])
def test_other_roles_get_the_not_allowed_page(client, owner, viewer, role):
    person = UserFactory(role=role, organization=owner.organization)
    client.force_login(person, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(PAGE)
    assert response.status_code == 403
    html = response.content.decode()
    assert "Not allowed" in html and "Only an organization&#x27;s admins may handle" in html
    posted = client.post(PAGE, {"action": "remove", "member_id": viewer.id})
    assert posted.status_code == 403 and "Nothing was changed." in posted.content.decode()
    assert User.objects.filter(pk=viewer.pk).exists()
    assert 'href="/console/members"' not in client.get("/console/").content.decode()


def test_a_viewer_is_offered_reports_not_set_up(client, owner, app):
    viewer = UserFactory(role=User.Role.VIEWER, organization=owner.organization)
    client.force_login(viewer, backend="django.contrib.auth.backends.ModelBackend")
    html = client.get(f"/console/apps/{app.id}/").content.decode()
    assert f"/console/apps/{app.id}/installs" in html
    assert f"/console/apps/{app.id}/keys" not in html
    assert "viewer" in html  # the role beside the email
