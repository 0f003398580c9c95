"""The data destination endpoints: every field checked with the envelope naming it, the
secret never answered, organization scoping, admins only, and the test endpoint's words."""

from __future__ import annotations

import uuid

import pytest

from accounts.models import User
from raw_export.models import Destination
from tests.factories import AppFactory, UserFactory
from tests.raw_export.helpers import create, directory_body, s3_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/data-destinations"


def refused(response, field: str) -> str:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["success"] is False and body["error"]["code"] == "VALIDATION_ERROR"
    assert field in body["error"]["details"], body
    return body["error"]["details"][field][0]


def test_an_admin_adds_an_s3_destination_and_the_secret_is_never_answered(
        owner_api, s3_server, s3_bucket):
    response = owner_api.post(URL, s3_body(s3_server, s3_bucket), format="json")
    assert response.status_code == 201, response.content
    destination = response.json()["data"]["destination"]
    assert destination["kind"] == "s3" and destination["bucket"] == s3_bucket
    assert destination["format"] == "parquet"
    assert destination["topics"] == ["installs", "inapps", "clicks", "reattributions",
                                     "deliveries", "skan_postbacks", "blocked_installs",
                                     "cost"]
    assert destination["app_ids"] == [] and destination["last_run"] is None
    assert destination["secret_access_key_set"] is True
    assert destination["access_key_id_hint"] == "…" + s3_server.access_key_id[-4:]
    for path in (URL, f"{URL}/{destination['id']}"):
        text = owner_api.get(path).content.decode()
        assert s3_server.secret_access_key not in text
        assert s3_server.access_key_id not in text
    stored = Destination.objects.get(id=destination["id"])
    assert s3_server.secret_access_key not in stored.secret_access_key_encrypted


def test_a_directory_destination_needs_only_a_path(owner_api):
    destination = create(owner_api, directory_body())
    assert destination["kind"] == "directory" and destination["path"] == "daily"
    assert destination["secret_access_key_set"] is False and destination["bucket"] == ""


@pytest.mark.parametrize(("field", "value", "words"), [
    ("name", "", "blank"),
    ("name", 12, "string"),
    ("name", "x" * 101, "100"),
    ("kind", "gcs", "s3 or directory"),
    ("bucket", "Not_A_Bucket!", "bucket name"),
    ("bucket", "ab", "bucket name"),
    ("prefix", "/absolute", "relative"),
    ("prefix", "a/../b", "relative"),
    ("prefix", "a b", "safe characters"),
    ("endpoint_url", "ftp://example.com", "URL"),
    ("endpoint_url", "not a url", "URL"),
    ("endpoint_url", "https://key:secret@minio.example.com", "without credentials"),
    ("endpoint_url", "https://minio.example.com/?x=1", "without credentials"),
    ("region", "US East", "region"),
    ("access_key_id", "has space", "spaces"),
    ("access_key_id", ["list"], "string"),
    ("secret_access_key", "with\nnewline", "spaces"),
    ("format", "json", "parquet or csv"),
    ("topics", ["installs", "everything"], "one of"),
    ("topics", [], "empty"),
    ("topics", "installs", "array"),
    ("app_ids", ["not-a-uuid"], "UUID"),
    ("app_ids", "all", "array"),
    ("path", "daily", "Only for a directory"),
    ("colour", "blue", "Unknown field"),
])
def test_every_s3_field_is_checked_and_named(owner_api, s3_server, field, value, words):
    body = s3_body(s3_server, "bucket-1")
    body[field] = value
    message = refused(owner_api.post(URL, body, format="json"), field)
    assert words.lower() in message.lower(), message


@pytest.mark.parametrize("field", ["bucket", "access_key_id", "secret_access_key"])
def test_an_s3_destination_without_its_credentials_or_bucket_is_refused(
        owner_api, s3_server, field):
    body = s3_body(s3_server, "bucket-1")
    del body[field]
    assert "Required" in refused(owner_api.post(URL, body, format="json"), field)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("path", "", "blank"),
    ("path", "../escape", "relative"),
    ("path", "/etc/cron.d", "relative"),
    ("bucket", "bucket-1", "Only for an s3"),
    ("secret_access_key", "abc", "Only for an s3"),
])
def test_every_directory_field_is_checked_and_named(owner_api, field, value, words):
    message = refused(owner_api.post(URL, directory_body(**{field: value}), format="json"),
                      field)
    assert words.lower() in message.lower(), message


def test_directory_destinations_are_off_without_an_export_root(owner_api, settings):
    settings.RAW_EXPORT_DIRECTORY_ROOT = ""
    assert "RAW_EXPORT_DIRECTORY_ROOT" in refused(
        owner_api.post(URL, directory_body(), format="json"), "kind")


def test_an_endpoint_on_a_private_network_is_refused_unless_allowed(
        owner_api, s3_server, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    message = refused(owner_api.post(URL, s3_body(s3_server, "bucket-1"), format="json"),
                      "endpoint_url")
    assert "OUTBOUND_ALLOW_PRIVATE_NETWORKS=1" in message


def test_apps_must_be_the_organizations_own(owner_api, s3_server, app, outsider):
    theirs = AppFactory(organization=outsider.organization)
    message = refused(owner_api.post(URL, s3_body(s3_server, "bucket-1",
                                                  app_ids=[str(app.id), str(theirs.id)]),
                                     format="json"), "app_ids")
    assert str(theirs.id) in message and str(app.id) not in message
    destination = create(owner_api, s3_body(s3_server, "bucket-1", app_ids=[str(app.id)]))
    assert destination["app_ids"] == [str(app.id)]


def test_a_body_that_is_not_an_object_is_refused(owner_api):
    response = owner_api.post(URL, ["a"], format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_an_update_changes_what_it_names_and_keeps_the_secret(owner_api, s3_server, s3_bucket):
    destination = create(owner_api, s3_body(s3_server, s3_bucket))
    before = Destination.objects.get(id=destination["id"]).secret_access_key_encrypted
    response = owner_api.put(f"{URL}/{destination['id']}",
                             {"format": "csv", "topics": ["installs"]}, format="json")
    assert response.status_code == 200, response.content
    answer = response.json()["data"]["destination"]
    assert answer["format"] == "csv" and answer["topics"] == ["installs"]
    assert answer["bucket"] == s3_bucket
    assert Destination.objects.get(id=destination["id"]).secret_access_key_encrypted == before


def test_an_update_is_checked_against_the_destination_as_it_would_be(owner_api, s3_server,
                                                                      s3_bucket):
    destination = create(owner_api, s3_body(s3_server, s3_bucket))
    path = f"{URL}/{destination['id']}"
    # Becoming a directory destination needs a path and drops the s3 fields.
    refused(owner_api.put(path, {"kind": "directory"}, format="json"), "path")
    assert "updatable" in refused(owner_api.put(path, {"id": str(uuid.uuid4())}, format="json"),
                                  "id")
    refused(owner_api.put(path, {"bucket": ""}, format="json"), "bucket")
    response = owner_api.put(path, {"kind": "directory", "path": "moved"}, format="json")
    assert response.status_code == 200, response.content
    stored = Destination.objects.get(id=destination["id"])
    assert stored.bucket == "" and stored.secret_access_key_encrypted == ""
    # And back: s3 needs its credentials again.
    refused(owner_api.put(path, {"kind": "s3", "bucket": s3_bucket,
                                 "access_key_id": "AKIA1234"}, format="json"),
            "secret_access_key")


def test_another_organizations_destination_is_not_found(owner_api, outsider_api, s3_server):
    destination = create(owner_api, s3_body(s3_server, "bucket-1"))
    for method, path in [("get", ""), ("put", ""), ("delete", ""), ("post", "/test"),
                         ("post", "/runs"), ("get", "/runs")]:
        response = getattr(outsider_api, method)(f"{URL}/{destination['id']}{path}", {},
                                                 format="json")
        assert response.status_code == 404, (method, path, response.content)
        assert response.json()["error"]["message"] == "Data destination not found."
    assert outsider_api.get(URL).json()["data"]["destinations"] == []


def test_marketers_may_not_manage_destinations(owner):
    from tests.helpers import client_for

    marketer = UserFactory(organization=owner.organization, role=User.Role.MARKETER)
    response = client_for(marketer).get(URL)
    assert response.status_code == 403
    assert "admins and developers" in response.json()["error"]["message"]


def test_deleting_a_destination_removes_it_and_its_runs(owner_api):
    destination = create(owner_api, directory_body())
    owner_api.post(f"{URL}/{destination['id']}/runs")
    response = owner_api.delete(f"{URL}/{destination['id']}")
    assert response.status_code == 200 and response.json()["success"] is True
    assert owner_api.get(f"{URL}/{destination['id']}").status_code == 404
    assert not Destination.objects.filter(id=destination["id"]).exists()


def test_without_a_token_the_endpoints_answer_401(api):
    assert api.get(URL).status_code == 401


def test_a_bad_runs_limit_is_named(owner_api):
    destination = create(owner_api, directory_body())
    refused(owner_api.get(f"{URL}/{destination['id']}/runs?limit=0"), "limit")
    refused(owner_api.get(f"{URL}/{destination['id']}/runs?limit=lots"), "limit")
