"""Logins and failed logins, on the API and the console, go in the audit log of the person's
organization (docs/teams.md, "Audit log")."""

import pytest

from audit.models import Entry

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"  # tests/factories.py


def test_an_api_login_is_recorded_with_its_address(api, owner):
    response = api.post("/api/v1/auth/login", {"email": owner.email, "password": PASSWORD},
                        format="json", REMOTE_ADDR="203.0.113.5")

    assert response.status_code == 200
    entry = Entry.objects.get()
    assert (entry.action, entry.actor_id, entry.target) == ("auth.login", owner.id, str(owner.id))
    assert (entry.organization_id, entry.ip) == (owner.organization_id, "203.0.113.5")
    assert entry.changes == {"method": "password"}


def test_a_wrong_password_is_a_failed_login_in_the_persons_organization(api, owner):
    response = api.post("/api/v1/auth/login", {"email": owner.email, "password": "wrong"},
                        format="json")

    assert response.status_code == 401
    entry = Entry.objects.get()
    assert (entry.action, entry.organization_id) == ("auth.login_failed", owner.organization_id)
    assert (entry.actor_id, entry.actor_email, entry.target) == (None, owner.email, str(owner.id))
    assert "wrong" not in str(entry.changes)


def test_an_email_no_one_has_is_logged_for_operators_only(api, owner):
    api.post("/api/v1/auth/login", {"email": "nobody@example.net", "password": "x"},
             format="json")

    entry = Entry.objects.get()
    assert (entry.action, entry.organization_id, entry.actor_email) == (
        "auth.login_failed", None, "nobody@example.net")


def test_a_login_refused_for_the_limit_is_not_logged(api, owner, settings):
    settings.LOGIN_RATE_LIMIT = "2/m"
    for _ in range(4):
        api.post("/api/v1/auth/login", {"email": owner.email, "password": "wrong"},
                 format="json")

    assert Entry.objects.filter(action="auth.login_failed").count() == 2


def test_console_logins_and_failures_are_recorded(client, owner):
    assert client.post("/console/login", {"email": owner.email, "password": "nope"}
                       ).status_code == 401
    assert client.post("/console/login", {"email": owner.email, "password": PASSWORD}
                       ).status_code == 302

    assert list(Entry.objects.order_by("id").values_list("action", flat=True)) == [
        "auth.login_failed", "auth.login"]
