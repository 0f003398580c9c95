"""The console's audit log page: admins only, the API's filters and cursor, values as text."""

import re

import pytest

from audit.services import entry_record
from tests.audit.helpers import START, entries_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/console/audit-log"
HOSTILE = "<script>alert(1)</script>"


def logged_in(client, user):
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_an_admin_sees_the_entries_as_text_with_secrets_masked(client, owner, outsider):
    entry_record(organization_id=owner.organization_id, actor_id=owner.id,
                 actor_email=owner.email, action="links.create", target="x",
                 changes={"campaign": HOSTILE, "client_secret": "***"}, ip="192.0.2.1",
                 now=START)
    entries_for(outsider, 1, action="webhooks.delete")

    html = logged_in(client, owner).get(URL).content.decode()

    assert "links.create" in html and "webhooks.delete" not in html
    assert HOSTILE not in html and "&lt;script&gt;" in html
    assert "***" in html and "Audit log" in html


def test_others_get_the_not_allowed_page(client, owner):
    viewer = UserFactory(organization=owner.organization, role="viewer")

    assert logged_in(client, viewer).get(URL).status_code == 403


def test_a_bad_filter_is_shown_beside_its_field(client, owner):
    response = logged_in(client, owner).get(f"{URL}?since=yesterday&actor={HOSTILE}")

    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_since"' in html and 'id="err_actor"' in html and HOSTILE not in html


def test_older_pages_follow_the_cursor(client, owner, settings):
    entries_for(owner, 60)
    console = logged_in(client, owner)

    first = console.get(URL).content.decode()
    assert ">t59<" in first and ">t9<" not in first and 'rel="next"' in first
    older = re.search(r'href="\?([^"]+)" rel="next"', first).group(1).replace("&amp;", "&")
    second = console.get(f"{URL}?{older}").content.decode()
    assert ">t9<" in second and ">t59<" not in second
