"""POST /api/v1/privacy/forget: the SDK's "forget me" files an erasure of its device."""

from __future__ import annotations

import pytest

from privacy import identities, services
from privacy.models import RequestStatus, Source, SubjectRequest
from tests.factories import AppFactory, issue_key
from tests.privacy.helpers import GAID
from tracking.models import Install

pytestmark = pytest.mark.django_db

URL = "/api/v1/privacy/forget"


def test_forget_files_an_erasure_of_the_device(sdk, app, world):
    response = sdk.post(URL, {"app_id": str(app.id), "device_id": GAID.upper()}, format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    stored = SubjectRequest.objects.get(id=data["subject_request_id"])
    assert data["request_status"] == "pending"
    assert (stored.source, stored.request_type) == (Source.SDK, "erasure")
    assert stored.identity_hash == identities.identity_hash("android_advertising_id", GAID)
    services.request_run(request_id=stored.id)
    stored.refresh_from_db()
    assert stored.status == RequestStatus.COMPLETED
    assert not Install.objects.filter(device_id=GAID).exists()


@pytest.mark.parametrize("device_id", ["not-a-device", "00000000-0000-0000-0000-000000000000"])
def test_a_device_id_that_names_no_device_is_refused(sdk, app, device_id):
    response = sdk.post(URL, {"app_id": str(app.id), "device_id": device_id}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["device_id"]
    assert not SubjectRequest.objects.exists()


def test_a_repeated_forget_files_nothing_twice(sdk, app):
    body = {"app_id": str(app.id), "device_id": GAID}
    first = sdk.post(URL, body, format="json")
    again = sdk.post(URL, body, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["data"]["subject_request_id"] == \
        first.json()["data"]["subject_request_id"]
    assert SubjectRequest.objects.count() == 1
    services.request_run(request_id=first.json()["data"]["subject_request_id"])
    assert sdk.post(URL, body, format="json").status_code == 201  # done: a new one


@pytest.mark.parametrize(("overrides", "field"), [
    ({"app_id": None}, "app_id"),
    ({"app_id": "x"}, "app_id"),
    ({"device_id": "d" * 65}, "device_id"),
    ({"device_id": ""}, "device_id"),
    ({"device_id": None}, "device_id"),
    ({"device_id": 42}, "device_id"),
])
def test_a_bad_body_is_a_400_naming_the_field(sdk, app, overrides, field):
    body = {"app_id": str(app.id), "device_id": GAID, **overrides}
    body = {k: v for k, v in body.items() if v is not None}
    response = sdk.post(URL, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not SubjectRequest.objects.exists()


def test_another_apps_key_is_refused(api, app, owner):
    other = AppFactory(organization=owner.organization)
    api.credentials(HTTP_X_API_KEY=issue_key(other))
    response = api.post(URL, {"app_id": str(app.id), "device_id": GAID}, format="json")
    assert response.status_code == 403
    assert not SubjectRequest.objects.exists()


def test_no_key_is_a_401(api, app):
    response = api.post(URL, {"app_id": str(app.id), "device_id": GAID}, format="json")
    assert response.status_code == 401
