"""The OpenDSR endpoints: POST/GET/DELETE /api/v1/privacy/requests (OpenDSR 1.0, sections 7-9)
for an organization's admins."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from privacy import services
from privacy.models import RequestStatus, SubjectRequest
from tests.factories import AppFactory, UserFactory
from tests.helpers import client_for
from tests.privacy.helpers import opendsr_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/privacy/requests"


def file(client, body):
    return client.post(URL, json.dumps(body), content_type="application/json")


def test_a_request_is_answered_with_opendsr_fields_and_its_exact_body(owner_api, app):
    body = opendsr_body(app)
    raw = json.dumps(body)
    response = owner_api.post(URL, raw, content_type="application/json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["subject_request_id"] == body["subject_request_id"]
    assert data["controller_id"] == str(app.organization_id)
    assert base64.b64decode(data["encoded_request"]).decode() == raw
    assert data["received_time"].endswith("Z") and data["expected_completion_time"] > \
        data["received_time"]
    assert "callback_secret" not in data  # no callback URLs, nothing to sign
    stored = SubjectRequest.objects.get(id=body["subject_request_id"])
    assert stored.status == RequestStatus.PENDING
    assert stored.identity_hash == hashlib.sha256(
        b"android_advertising_id:3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12").hexdigest()


def test_status_says_pending_until_it_runs(owner_api, app):
    body = opendsr_body(app)
    file(owner_api, body)
    response = owner_api.get(f"{URL}/{body['subject_request_id']}")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["request_status"] == "pending"
    assert data["subject_request_type"] == "erasure"
    assert data["results_url"] is None and data["found"] == {}


def test_a_pending_request_is_cancelled_once(owner_api, app):
    body = opendsr_body(app)
    file(owner_api, body)
    response = owner_api.delete(f"{URL}/{body['subject_request_id']}")
    assert response.status_code == 202
    assert response.json()["data"]["subject_request_id"] == body["subject_request_id"]
    stored = SubjectRequest.objects.get(id=body["subject_request_id"])
    assert stored.status == RequestStatus.CANCELLED
    assert stored.identity_value == "" and stored.encoded_request == ""
    again = owner_api.delete(f"{URL}/{body['subject_request_id']}")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "CONFLICT"


def test_a_used_id_is_a_conflict(owner_api, app):
    body = opendsr_body(app)
    assert file(owner_api, body).status_code == 201
    response = file(owner_api, body)
    assert response.status_code == 409
    assert SubjectRequest.objects.count() == 1


BAD_FIELDS = [
    ("subject_request_id", "not-a-uuid"),
    ("subject_request_id", str(uuid.uuid1())),  # not v4
    ("subject_request_id", None),
    ("subject_request_type", "rectification"),
    ("submitted_time", "yesterday"),
    ("submitted_time", None),
    ("property_id", "12"),
    ("api_version", "3.0"),
    ("status_callback_urls", "https://example.com/cb"),
    ("status_callback_urls", ["ftp://example.com/cb"]),
    ("subject_identities", []),
    ("subject_identities", "3f1c"),
    ("regulation", "hipaa"),
    ("unknown_field", 1),
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS)
def test_a_bad_field_is_a_400_naming_it(owner_api, app, field, value):
    body = opendsr_body(app)
    if value is None:
        body.pop(field)
    else:
        body[field] = value
    response = file(owner_api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert field in error["details"]
    assert SubjectRequest.objects.count() == 0


@pytest.mark.parametrize(("identity", "field"), [
    ({"identity_type": "email", "identity_format": "raw", "identity_value": "a@b.c"},
     "identity_type"),
    ({"identity_type": "android_advertising_id", "identity_format": "sha256",
      "identity_value": "ab"}, "identity_format"),
    ({"identity_type": "install_id", "identity_format": "raw", "identity_value": "x"},
     "identity_value"),
    ({"identity_type": "customer_user_id", "identity_format": "raw",
      "identity_value": "u" * 256}, "identity_value"),
    ({"identity_type": "ios_vendor_id", "identity_format": "raw", "identity_value": " "},
     "identity_value"),
])
def test_a_bad_identity_is_a_400_naming_its_field(owner_api, app, identity, field):
    response = file(owner_api, opendsr_body(app, subject_identities=[identity]))
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert field in json.dumps(details["subject_identities"])


NOT_A_DEVICE = ("Must be a device's advertising id: a UUID written like "
                "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12.")


@pytest.mark.parametrize(("identity_type", "value", "message"), [
    ("android_advertising_id", "not-a-device", NOT_A_DEVICE),
    ("ios_vendor_id", "12345", NOT_A_DEVICE),
    ("ios_advertising_id", "00000000-0000-0000-0000-000000000000",
     "The zeroed id is what a device without tracking consent sends; it names no device, and "
     "installs never keep it."),
    ("install_id", "install-42", "Must be a UUID."),
])
@pytest.mark.parametrize("request_type", ["erasure", "access"])
def test_an_identity_that_cannot_name_anyone_is_refused_when_filed(
        owner_api, app, identity_type, value, message, request_type):
    # Run, it would end "completed" with nothing found: a request that did nothing.
    response = file(owner_api, opendsr_body(app, subject_request_type=request_type,
                                            subject_identities=[{
                                                "identity_type": identity_type,
                                                "identity_format": "raw",
                                                "identity_value": value}]))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["details"] == {"subject_identities": [f"0: identity_value: {message}"]}
    assert SubjectRequest.objects.count() == 0


def test_plain_http_callbacks_need_local_receivers_allowed(owner_api, app, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    response = file(owner_api, opendsr_body(
        app, status_callback_urls=["http://controller.example.com/cb"]))
    assert response.status_code == 400
    assert "status_callback_urls" in response.json()["error"]["details"]


def test_a_public_plain_http_callback_is_refused_even_with_local_receivers_allowed(
        owner_api, app, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    response = file(owner_api, opendsr_body(
        app, status_callback_urls=["http://93.184.216.34/cb"]))
    assert response.status_code == 400
    assert response.json()["error"]["details"]["status_callback_urls"] == [
        "0: Refused: 93.184.216.34, a public address; plain http is only for a receiver on "
        "loopback or a private network. Use an https URL."]
    assert SubjectRequest.objects.count() == 0


def test_another_organizations_app_is_not_found(outsider_api, app):
    response = file(outsider_api, opendsr_body(app))
    assert response.status_code == 404
    assert SubjectRequest.objects.count() == 0


def test_another_organizations_request_is_not_found(owner_api, outsider_api, app):
    body = opendsr_body(app)
    file(owner_api, body)
    assert outsider_api.get(f"{URL}/{body['subject_request_id']}").status_code == 404
    assert outsider_api.delete(f"{URL}/{body['subject_request_id']}").status_code == 404
    assert outsider_api.get(URL, {"app_id": str(app.id)}).status_code == 404
    assert SubjectRequest.objects.get().status == RequestStatus.PENDING


def test_a_developer_may_not_file_or_read_requests(owner, app):
    developer = UserFactory(organization=owner.organization, role="developer")
    client = client_for(developer)
    assert file(client, opendsr_body(app)).status_code == 403
    assert client.get(URL, {"app_id": str(app.id)}).status_code == 403


def test_the_list_shows_an_apps_requests_newest_first(owner_api, app, owner):
    other_app = AppFactory(organization=owner.organization)
    first, second = opendsr_body(app), opendsr_body(app, subject_request_type="access")
    file(owner_api, first)
    file(owner_api, second)
    file(owner_api, opendsr_body(other_app))
    response = owner_api.get(URL, {"app_id": str(app.id)})
    assert response.status_code == 200
    rows = response.json()["data"]["requests"]
    assert [r["subject_request_id"] for r in rows] == [second["subject_request_id"],
                                                      first["subject_request_id"]]
    assert rows[0]["identity_hash"] and "identity_value" not in rows[0]


def test_the_list_needs_an_app(owner_api):
    response = owner_api.get(URL)
    assert response.status_code == 400
    assert "app_id" in response.json()["error"]["details"]


def test_the_list_reads_in_the_same_queries_for_one_request_or_many(
        owner_api, app):
    def queries_for_list() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert owner_api.get(URL, {"app_id": str(app.id)}).status_code == 200
        return len(captured)

    body = opendsr_body(app, subject_request_type="access")
    file(owner_api, body)
    services.request_run(request_id=body["subject_request_id"])
    one = queries_for_list()
    for _ in range(4):
        body = opendsr_body(app, subject_request_type="access")
        file(owner_api, body)
        services.request_run(request_id=body["subject_request_id"])
    assert queries_for_list() == one
