"""The choke points (attribution_site/audit_trail.py): the API's OrganizationScopedView and the
console's ConsolePage record every person's change that succeeded, for views written with no
line about auditing (tests/audit/urls.py) as for the project's own."""

import pytest

from audit.models import Entry
from delivery.models import PostbackConfig
from tests.audit.urls import CREATED

pytestmark = pytest.mark.django_db

WIDGETS = pytest.mark.urls("tests.audit.urls")


@WIDGETS
def test_a_new_api_view_is_recorded_with_its_secrets_masked(owner, owner_api):
    response = owner_api.post("/api/v1/widgets", {"name": "Blue", "client_secret": "s3cr3t",
                                                  "nested": {"api_key": "k"}},
                              format="json", REMOTE_ADDR="198.51.100.7")

    assert response.status_code == 201
    entry = Entry.objects.get()
    assert (entry.action, entry.target) == ("widgets.create", str(CREATED))
    assert entry.changes == {"name": "Blue", "client_secret": "***", "nested": {"api_key": "***"}}
    assert (entry.organization_id, entry.actor_id) == (owner.organization_id, owner.id)
    assert (entry.actor_email, entry.ip) == (owner.email, "198.51.100.7")
    assert "s3cr3t" not in str(Entry.objects.values_list("changes", flat=True)[0])


@WIDGETS
def test_an_update_names_the_object_in_the_url(owner_api):
    owner_api.patch(f"/api/v1/widgets/{CREATED}", {"name": "Red"}, format="json")

    entry = Entry.objects.get()
    assert (entry.action, entry.target, entry.changes) == (
        "widgets.update", str(CREATED), {"name": "Red"})


@WIDGETS
def test_reads_refusals_and_failed_changes_are_not_recorded(owner_api, outsider_api, api):
    owner_api.get("/api/v1/widgets")
    assert owner_api.post("/api/v1/widgets", {"name": "refused"}, format="json").status_code == 400
    assert api.post("/api/v1/widgets", {"name": "x"}, format="json").status_code == 401

    assert not Entry.objects.exists()


@WIDGETS
def test_a_person_whose_role_lacks_the_capability_is_refused_and_not_recorded(owner):
    from tests.factories import UserFactory
    from tests.helpers import client_for

    viewer = UserFactory(organization=owner.organization, role="viewer")
    assert client_for(viewer).post("/api/v1/widgets", {"name": "x"},
                                   format="json").status_code == 403
    assert not Entry.objects.exists()


@WIDGETS
def test_a_new_console_page_is_recorded_when_its_post_redirects(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")

    assert client.post("/console/widgets/new", {"name": "Blue", "password": "p"}).status_code == 302
    assert client.post("/console/widgets/new", {"name": "refused"}).status_code == 400
    assert client.post("/console/widgets/new", {"name": "x", "preview": "1"}).status_code == 200

    entry = Entry.objects.get()
    assert (entry.action, entry.target) == ("widgets.create", str(CREATED))
    assert entry.changes == {"name": "Blue", "password": "***"}


def test_the_projects_own_api_views_are_recorded(owner_api, app):
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": "https://network.example/postback"}, format="json")

    assert response.status_code == 201
    entry = Entry.objects.get()
    assert entry.action == "postbacks.create"
    assert entry.target == str(PostbackConfig.objects.get().id)


def test_the_projects_own_console_pages_are_recorded(client, owner, app):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    response = client.post("/console/apps/new", {
        "name": "Runner", "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.runner"})

    assert response.status_code == 302
    entry = Entry.objects.get()
    assert entry.action == "apps.create"
    assert response["Location"] == f"/console/apps/{entry.target}/"
    assert entry.changes["name"] == "Runner" and "csrfmiddlewaretoken" not in entry.changes
