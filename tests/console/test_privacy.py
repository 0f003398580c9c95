"""The console's privacy requests: the list with states, the form that files a request through
the API's serializer and service, a request's page (state, what was found, the document's
link, cancel while pending; a failed run's error in words); admins only; another
organization's app or request is a 404; and after an erasure the install search finds nothing
of the person."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from privacy import erasure, policy, services
from privacy.models import RequestRun, RequestStatus, Source, SubjectRequest
from tests.console.helpers import XSS_CAMPAIGN
from tests.factories import UserFactory
from tests.privacy.helpers import (  # noqa: F401 - fixtures
    GAID,
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    receiver_factory,
    sdk,
    world,
)

pytestmark = pytest.mark.django_db


def list_url(app):
    return f"/console/apps/{app.id}/privacy"


def file(console, app, request_type="erasure", identity_type="android_advertising_id",
         value=GAID):
    return console.post(list_url(app), {"subject_request_type": request_type,
                                        "identity_type": identity_type,
                                        "identity_value": value})


def test_the_page_lists_nothing_at_first_and_offers_the_form(console, app):
    response = console.get(list_url(app))
    assert response.status_code == 200
    html = response.content.decode()
    assert "No privacy requests yet." in html and 'name="identity_value"' in html
    assert f'href="/console/apps/{app.id}/privacy" aria-current="page"' in html


@pytest.mark.parametrize(("identity_type", "value", "message"), [
    ("android_advertising_id", "not-a-device", "Must be a device&#x27;s advertising id"),
    ("ios_advertising_id", "00000000-0000-0000-0000-000000000000", "names no device"),
    ("install_id", "install-42", "Must be a UUID."),
])
def test_an_identity_that_cannot_name_anyone_is_a_form_error(console, app, identity_type, value,
                                                             message):
    response = file(console, app, identity_type=identity_type, value=value)
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('id="err_identity_value"')[1].split("</ul>")[0]
    assert message in errors
    assert f'value="{value}"' in html  # kept in the field, to be corrected
    assert not SubjectRequest.objects.exists()


def test_filing_an_erasure_shows_its_page_pending_and_it_can_be_cancelled(console, app):
    response = file(console, app)
    assert response.status_code == 302
    stored = SubjectRequest.objects.get()
    assert (stored.source, stored.status) == (Source.CONSOLE, RequestStatus.PENDING)
    assert response["Location"] == f"/console/apps/{app.id}/privacy/{stored.id}"
    page = console.get(response["Location"]).content.decode()
    assert re.search(r'id="request-state">Pending<', page)
    assert GAID not in page and stored.identity_hash in page
    assert str(stored.id) in console.get(list_url(app)).content.decode()
    console.post(response["Location"])
    stored.refresh_from_db()
    assert stored.status == RequestStatus.CANCELLED


def test_a_bad_identity_is_shown_beside_its_field(console, app):
    response = file(console, app, identity_type="install_id", value=XSS_CAMPAIGN)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Must be a UUID." in html and "<script>alert(1)</script>" not in html
    assert not SubjectRequest.objects.exists()


def test_a_completed_access_request_links_its_document(console, app, world):  # noqa: F811
    file(console, app, request_type="access")
    stored = SubjectRequest.objects.get()
    services.request_run(request_id=stored.id)
    page = console.get(f"/console/apps/{app.id}/privacy/{stored.id}").content.decode()
    assert "Completed" in page
    link = re.search(r'id="document-link" href="([^"]+)"', page).group(1)
    document = Client().get(link)
    assert document.status_code == 200
    assert document.json()["data"]["document"]["records"]["installs"][0]["device_id"] == GAID


def test_after_an_erasure_the_install_search_finds_nothing(console, app, world):  # noqa: F811
    installs_url = f"/console/apps/{app.id}/installs"
    assert str(world.id) in console.get(installs_url, {"q": GAID}).content.decode()
    file(console, app)
    services.request_run(request_id=SubjectRequest.objects.get().id)
    page = console.get(installs_url, {"q": GAID}).content.decode()
    assert str(world.id) not in page
    detail = console.get(f"{installs_url}/{world.id}").content.decode()
    assert GAID not in detail


def test_a_completed_erasure_names_what_it_changed_in_words_not_tables(
        console, app, world):  # noqa: F811
    file(console, app)
    stored = SubjectRequest.objects.get()
    services.request_run(request_id=stored.id)
    stored.refresh_from_db()
    page = console.get(f"/console/apps/{app.id}/privacy/{stored.id}").content.decode()
    assert "<td>Installs</td><td class=\"num\">1</td>" in page
    assert "<td>Events</td><td class=\"num\">2</td>" in page
    assert "<td>Clicks (hot store)</td><td class=\"num\">1</td>" in page
    assert "<td>Link opens</td><td class=\"num\">1</td>" in page
    assert stored.found["tracking_install"] == 1  # the API's names are unchanged
    for table in stored.found:
        assert table not in page


def test_another_organizations_app_and_request_are_not_found(console, app, outsider_app,
                                                             outsider):
    assert console.get(list_url(outsider_app)).status_code == 404
    other = Client()
    other.force_login(outsider, backend="django.contrib.auth.backends.ModelBackend")
    file(console, app)
    request_id = SubjectRequest.objects.get().id
    assert other.get(f"/console/apps/{app.id}/privacy/{request_id}").status_code == 404
    assert other.get(f"/console/apps/{outsider_app.id}/privacy/{request_id}"
                     ).status_code == 404


def test_a_developer_cannot_see_the_pages(client, owner, app):
    developer = UserFactory(organization=owner.organization, role="developer")
    client.force_login(developer, backend="django.contrib.auth.backends.ModelBackend")
    assert client.get(list_url(app)).status_code == 403
    assert "Privacy requests" not in client.get(f"/console/apps/{app.id}/keys"
                                                ).content.decode()


def test_a_failed_request_shows_its_error_in_words_as_text(console, app, monkeypatch):
    def locked(app_id, *, install_ids, device_ids):
        raise RuntimeError("<b>table locked</b>\nDETAIL: a row's values")

    monkeypatch.setattr(erasure, "ERASERS", (*erasure.ERASERS, locked))
    file(console, app)
    stored = SubjectRequest.objects.get()
    page_url = f"/console/apps/{app.id}/privacy/{stored.id}"
    services.request_run(request_id=stored.id)
    page = console.get(page_url).content.decode()
    assert re.search(r'id="request-state">In Progress<', page)
    assert re.search(r'id="request-tries">1<', page) and 'id="request-retrying"' in page
    for _ in range(policy.RUN_MAX_ATTEMPTS - 1):
        RequestRun.objects.update(next_attempt_at=timezone.now())
        services.request_run(request_id=stored.id)
    page = console.get(page_url).content.decode()
    assert re.search(r'id="request-state">Failed<', page)
    assert re.search(rf'id="request-tries">{policy.RUN_MAX_ATTEMPTS}<', page)
    assert ('id="request-error">The run stopped with an error: RuntimeError: '
            '&lt;b&gt;table locked&lt;/b&gt;<') in page
    assert "<b>table locked</b>" not in page and "a row's values" not in page
    assert 'id="request-failed"' in page and "Cancel this request" not in page
    assert "Failed" in console.get(list_url(app)).content.decode()
