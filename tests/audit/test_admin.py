"""Operators read entries in the admin; no one adds, changes or deletes one there."""

import pytest

from tests.audit.helpers import entries_for

pytestmark = pytest.mark.django_db


def test_operators_read_entries_and_cannot_change_them(operator_client, owner):
    entry = entries_for(owner, 1)[0]

    assert operator_client.get("/admin/audit/entry/").status_code == 200
    page = operator_client.get(f"/admin/audit/entry/{entry.id}/change/")
    assert page.status_code == 200 and "postbacks.create" in page.content.decode()
    assert operator_client.get("/admin/audit/entry/add/").status_code == 403
    assert operator_client.post(f"/admin/audit/entry/{entry.id}/delete/").status_code == 403
    assert operator_client.post(f"/admin/audit/entry/{entry.id}/change/",
                                {"action": "x"}).status_code == 403
