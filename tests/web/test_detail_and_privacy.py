"""A web install's detail shows its web journey; privacy requests by web id, and by a
customer id the site identified, find and erase the web id (docs/web.md, "Privacy")."""

from __future__ import annotations

import uuid

import pytest

from privacy import services as privacy_services
from tests.web.helpers import ORIGIN, new_web_id
from tracking.models import Install
from web.models import Visit, WebId

pytestmark = pytest.mark.django_db


def test_a_web_installs_detail_has_its_web_journey(page, owner_api, web_app):
    web_id = new_web_id()
    page.visit(web_id, url=f"{ORIGIN}/shoes?utm_source=google&utm_campaign=brand",
               referrer="https://www.google.com/", utm_source="google", utm_campaign="brand")
    install = Install.objects.get(device_id=web_id)
    detail = owner_api.get(f"/api/v1/installs/{install.id}").json()["data"]["install"]
    assert detail["web"] == {"web_id": web_id,
                             "landing_url": f"{ORIGIN}/shoes?utm_source=google&utm_campaign=brand",
                             "referrer_host": "www.google.com", "visit_media_source": "google",
                             "visit_campaign": "brand"}


def test_an_app_installs_detail_has_no_web_block(owner_api, app):
    from rest_framework.test import APIClient

    from tests.factories import issue_key

    key = issue_key(app)
    sdk = APIClient()
    sdk.credentials(HTTP_X_API_KEY=key)
    created = sdk.post("/api/v1/installs", {"app_id": str(app.id), "platform": "android",
                                            "sdk_version": "1.0", "device_id": str(uuid.uuid4())},
                       format="json").json()["data"]
    detail = owner_api.get(f"/api/v1/installs/{created['installId']}").json()["data"]["install"]
    assert "web" not in detail


def request_run(owner_api, app, identity_type, value, request_type="erasure"):
    body = {"subject_request_id": str(uuid.uuid4()), "subject_request_type": request_type,
            "submitted_time": "2026-11-20T15:00:00Z", "property_id": str(app.id),
            "api_version": "1.0", "subject_identities": [
                {"identity_type": identity_type, "identity_format": "raw",
                 "identity_value": value}]}
    response = owner_api.post("/api/v1/privacy/requests", body, format="json")
    assert response.status_code == 201, response.content
    assert privacy_services.request_run(request_id=body["subject_request_id"])


def test_an_erasure_by_web_id_removes_its_visits_and_blanks_its_install(page, owner_api,
                                                                        web_app):
    web_id, bystander = new_web_id(), new_web_id()
    page.visit(web_id, utm_source="google")
    page.visit(bystander)
    request_run(owner_api, web_app, "web_id", web_id.upper())
    assert not WebId.objects.filter(web_id=web_id).exists()
    assert not Visit.objects.filter(web_id=web_id).exists()
    assert Install.objects.filter(app_id=web_app.id, device_id__isnull=True).count() == 1
    assert WebId.objects.filter(web_id=bystander).exists()


def test_an_erasure_by_customer_id_finds_the_identified_web_id(page, owner_api, web_app):
    web_id = new_web_id()
    page.visit(web_id)
    page.post("identify", {"web_id": web_id, "customer_user_id": "c-9"})
    request_run(owner_api, web_app, "customer_user_id", "c-9")
    assert not WebId.objects.filter(web_id=web_id).exists()
    assert not Install.objects.filter(device_id=web_id).exists()


def test_a_web_id_that_is_no_uuid_is_refused(owner_api, web_app):
    body = {"subject_request_id": str(uuid.uuid4()), "subject_request_type": "erasure",
            "submitted_time": "2026-11-20T15:00:00Z", "property_id": str(web_app.id),
            "api_version": "1.0", "subject_identities": [
                {"identity_type": "web_id", "identity_format": "raw", "identity_value": "x"}]}
    assert owner_api.post("/api/v1/privacy/requests", body, format="json").status_code == 400
