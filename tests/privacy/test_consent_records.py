"""A subject's consent history: listed in an access document, deleted by an erasure, a
bystander's kept."""

from __future__ import annotations

import pytest

from consent.models import ConsentRecord
from privacy import services
from tests.privacy.helpers import GAID, OTHER, opendsr_body

pytestmark = pytest.mark.django_db

DENIED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                     "ad_personalization_enabled": False}}


def consent(sdk, app, device_id):
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), "device_id": device_id,
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 201, response.content


def run(owner_api, app, request_type):
    body = opendsr_body(app, subject_request_type=request_type)
    assert owner_api.post("/api/v1/privacy/requests", body, format="json").status_code == 201
    assert services.request_run(request_id=body["subject_request_id"])
    return owner_api.get(f"/api/v1/privacy/requests/{body['subject_request_id']}"
                         ).json()["data"]


def test_an_access_document_lists_the_consent_history(owner_api, sdk, app, world):
    consent(sdk, app, GAID)
    status = run(owner_api, app, "access")
    assert status["found"]["consent"] == 1
    document = owner_api.get(status["results_url"]).json()["data"]["document"]
    [record] = document["records"]["consent"]
    assert record["device_id"] == GAID and record["gdpr_applies"] is True


def test_an_erasure_deletes_the_subjects_consent_and_keeps_the_bystanders(owner_api, sdk,
                                                                           app, world):
    consent(sdk, app, GAID)
    consent(sdk, app, OTHER)
    status = run(owner_api, app, "erasure")
    assert status["found"]["consent_consentrecord"] == 1
    assert not ConsentRecord.objects.filter(device_id=GAID).exists()
    assert not ConsentRecord.objects.filter(install_id=world.id).exists()
    assert ConsentRecord.objects.filter(device_id=OTHER).count() == 1
