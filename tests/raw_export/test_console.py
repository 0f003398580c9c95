"""The console's data destinations page: add one through the API's checks (errors beside the
fields, the secret never put back into the page), test it, run it now and see its runs with
rows per topic and the error in words; admins only; another organization's destination is a
404; what the owner typed is shown as text."""

from __future__ import annotations

import pytest

from accounts.models import User
from raw_export import services
from raw_export.models import Destination, Run
from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.factories import UserFactory
from tests.raw_export.helpers import create, directory_body, s3_body

pytestmark = pytest.mark.django_db

LIST = "/console/data-destinations"


def form(**fields) -> dict:
    return {"name": "Lake", "kind": "directory", "path": "lake", "format": "parquet",
            "topics": ["installs", "inapps"], **fields}


def test_an_admin_adds_a_directory_destination_tests_and_runs_it(console, export_root):
    response = console.post(LIST, form())
    assert response.status_code == 302, response.content
    destination = Destination.objects.get()
    assert response["Location"] == f"{LIST}/{destination.id}"
    assert destination.topics == ["installs", "inapps"] and destination.app_ids == []
    page = console.post(f"{LIST}/{destination.id}", {"action": "test"}, follow=True)
    assert "the destination works" in page.content.decode()
    console.post(f"{LIST}/{destination.id}", {"action": "run"})
    run = Run.objects.get()
    services.run_attempt(run_id=run.id)
    page = console.get(f"{LIST}/{destination.id}").content.decode()
    assert "succeeded" in page and "installs: 0" in page
    listing = console.get(LIST).content.decode()
    assert "Lake" in listing and "succeeded" in listing


def test_errors_are_shown_beside_their_fields_and_the_secret_is_not_sent_back(
        console, s3_server):
    secret = "s3cr3t-never-shown-again"
    response = console.post(LIST, {**s3_body(s3_server, "Bad Bucket!", secret_access_key=secret),
                                   "topics": ["installs"]})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Please check Bucket" in html and "bucket name" in html
    assert secret not in html
    assert not Destination.objects.exists()


def test_a_failing_destination_shows_its_error_in_words(console, s3_server, s3_bucket):
    response = console.post(LIST, {**s3_body(s3_server, s3_bucket, secret_access_key="nope"),
                                   "topics": ["installs"]})
    destination = Destination.objects.get()
    page = console.post(f"{LIST}/{destination.id}", {"action": "test"}, follow=True)
    assert "The test failed" in page.content.decode()
    assert "bad credentials" in page.content.decode()
    Destination.objects.filter(id=destination.id).update(
        last_error="The bucket 'x' does not exist (no such bucket).")
    page = console.get(response["Location"]).content.decode()
    assert "does not exist (no such bucket)" in page
    assert s3_server.secret_access_key not in page and "nope" not in page


def test_what_the_owner_typed_is_shown_as_text(console, owner_api):
    destination = create(owner_api, directory_body(name=XSS_CAMPAIGN))
    Destination.objects.filter(id=destination["id"]).update(last_error=XSS_CAMPAIGN)
    assert_shown_as_text(console.get(LIST).content.decode())
    assert_shown_as_text(console.get(f"{LIST}/{destination['id']}").content.decode())


def test_another_organizations_destination_is_not_found(console, outsider_api):
    theirs = create(outsider_api, directory_body())
    assert console.get(f"{LIST}/{theirs['id']}").status_code == 404
    assert console.post(f"{LIST}/{theirs['id']}", {"action": "delete"}).status_code == 404
    assert Destination.objects.filter(id=theirs["id"]).exists()


def test_marketers_may_not_see_the_pages(client, owner):
    marketer = UserFactory(organization=owner.organization, role=User.Role.MARKETER)
    client.force_login(marketer, backend="django.contrib.auth.backends.ModelBackend")
    assert client.get(LIST).status_code == 403


def test_removing_a_destination_keeps_its_files(console, owner_api, export_root):
    destination = create(owner_api, directory_body())
    (export_root / "daily").mkdir()
    (export_root / "daily" / "kept").write_text("x")
    response = console.post(f"{LIST}/{destination['id']}", {"action": "delete"})
    assert response.status_code == 302 and response["Location"] == LIST
    assert not Destination.objects.exists()
    assert (export_root / "daily" / "kept").exists()


def test_the_admin_shows_destinations_and_runs_without_their_credentials(client, owner_api,
                                                                         s3_server):
    destination = create(owner_api, s3_body(s3_server, "bucket-1"))
    owner_api.post(f"/api/v1/data-destinations/{destination['id']}/runs")
    operator = User.objects.create_superuser("ops@example.com", "operator-password")
    client.force_login(operator)
    for path in ["/admin/raw_export/destination/",
                 f"/admin/raw_export/destination/{destination['id']}/change/",
                 f"/admin/raw_export/run/{Run.objects.get().id}/change/"]:
        page = client.get(path)
        assert page.status_code == 200, path
        assert s3_server.secret_access_key not in page.content.decode()
        assert s3_server.access_key_id not in page.content.decode()
