"""Access and portability: one JSON document of everything held for the identity, behind a
signed link that expires."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from outbox.sweep import kind_sweep
from privacy import links, services
from privacy.enqueue import RUNS
from privacy.models import AccessDocument
from tests.privacy.helpers import CUSTOMER, GAID, opendsr_body
from tracking.models import Install

pytestmark = pytest.mark.django_db


def request_access(owner_api, app, request_type="access"):
    body = opendsr_body(app, subject_request_type=request_type)
    assert owner_api.post("/api/v1/privacy/requests", body, format="json").status_code == 201
    services.request_run(request_id=body["subject_request_id"])
    return owner_api.get(f"/api/v1/privacy/requests/{body['subject_request_id']}"
                         ).json()["data"]


@pytest.mark.parametrize("request_type", ["access", "portability"])
def test_the_document_holds_everything_and_erases_nothing(owner_api, app, world, request_type):
    status = request_access(owner_api, app, request_type)
    assert status["request_status"] == "completed"
    assert status["found"]["installs"] == 1 and status["found"]["events"] == 2
    assert status["results_count"] == sum(status["found"].values())
    url = urlsplit(status["results_url"])
    assert url.scheme == "http" and url.netloc == "testserver"
    response = APIClient().get(url.path)  # the link is the credential
    assert response.status_code == 200
    document = response.json()["data"]["document"]
    records = document["records"]
    assert records["installs"][0]["device_id"] == GAID
    assert records["installs"][0]["customer_user_id"] == CUSTOMER
    assert {c["advertising_id"] for c in records["clicks"]} == {GAID}
    assert len(records["events"]) == 2 and len(records["deliveries"]) == 3
    assert records["link_opens"][0]["device_id"] == GAID
    assert records["apple_ads_claims"][0]["state"] == "attributed"
    assert Install.objects.get(id=world.id).device_id == GAID  # an access erases nothing


def test_the_link_expires_with_the_document(owner_api, app, world):
    status = request_access(owner_api, app)
    path = urlsplit(status["results_url"]).path
    AccessDocument.objects.update(
        created_at=timezone.now() - links.DOCUMENT_LIFETIME - timedelta(minutes=1))
    response = APIClient().get(path)
    assert response.status_code == 404
    assert "expired" in response.json()["error"]["message"]
    assert owner_api.get(f"/api/v1/privacy/requests/{status['subject_request_id']}"
                         ).json()["data"]["results_url"] is None
    kind_sweep(RUNS, now=timezone.now())
    assert not AccessDocument.objects.exists()  # beat deletes it


def test_a_forged_link_finds_nothing(owner_api, app, world):
    status = request_access(owner_api, app)
    token = urlsplit(status["results_url"]).path.rsplit("/", 1)[1]
    unsigned = token.split(":", 1)[0]
    assert APIClient().get(f"/api/v1/privacy/documents/{unsigned}:forged").status_code == 404
