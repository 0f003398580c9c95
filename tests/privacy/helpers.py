"""Helpers shared by the privacy tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import time
import uuid

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apple_ads.models import Attempt as AppleAttempt
from apple_ads.models import Claim
from delivery import services as delivery_services
from delivery.models import Delivery, PostbackConfig
from links.models import Link, LinkOpen
from tests.delivery.helpers import (  # noqa: F401 - fixtures
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    readme_process,
    receiver_factory,
    trusted_ca,
)
from tests.tracking.helpers import ANDROID_SDK, PUBLIC_IP, click_through, install_body
from tracking.models import Install

GAID = "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12"
OTHER = "aaaaaaaa-1111-4222-8333-444444444444"
CUSTOMER = "customer-4711"


def opendsr_body(app, **overrides) -> dict:
    body = {
        "subject_request_id": str(uuid.uuid4()),
        "subject_request_type": "erasure",
        "submitted_time": "2026-11-20T15:00:00Z",
        "subject_identities": [{"identity_type": "android_advertising_id",
                                "identity_format": "raw",
                                "identity_value": "3f1c2a9e-0d4b-4e8f-9a61-5b7c8d9e0f12"}],
        "property_id": str(app.id),
        "api_version": "1.0",
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def install(sdk, app, device_id, **fields):
    return sdk.post("/api/v1/installs", install_body(app, device_id=device_id, **fields),
                    format="json", HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)


def events(sdk, app, device_id):
    now = int(time.time() * 1000)
    body = {"app_id": str(app.id), "sdk_version": "2.4.0", "device_id": device_id, "events": [
        {"event_name": "purchase", "properties": {"amount": 4.99, "currency": "EUR"},
         "timestamp": now, "session_id": str(uuid.uuid4())},
        {"event_name": "level_up", "properties": {}, "timestamp": now,
         "session_id": str(uuid.uuid4())}]}
    response = sdk.post("/api/v1/events", body, format="json")
    assert response.status_code == 200, response.content


@pytest.fixture
def world(api, sdk, app, receiver_factory):  # noqa: F811 - the imported fixture
    """Two users of one app: the subject (clicked, installed with a customer id, sent events,
    was posted back, opened a link, brought an Apple Ads token) and a bystander."""
    receiver = receiver_factory()
    PostbackConfig.objects.create(app=app, media_source="network_a",
                                  postback_url=receiver.url("/pb?gaid={device_id}"),
                                  events=["install", "event"])
    for device_id in (GAID, OTHER):
        assert click_through(api, app, pid="network_a", c="spring",
                             advertising_id=device_id).status_code == 302
    assert install(sdk, app, GAID, customer_user_id=CUSTOMER).status_code == 201
    assert install(sdk, app, OTHER).status_code == 201
    events(sdk, app, GAID)
    events(sdk, app, OTHER)
    for delivery_id in Delivery.objects.values_list("id", flat=True):
        delivery_services.delivery_attempt(delivery_id=delivery_id)
    subject = Install.objects.get(device_id=GAID)
    link = Link.objects.create(app=app, code="spring", media_source="network_a")
    LinkOpen.objects.create(link=link, app_id=app.id, device_id=GAID, install_id=subject.id)
    claim = Claim.objects.create(app=app, install_id=subject.id, token="adservices-token",
                                 state="attributed", answer={"attribution": True})
    AppleAttempt.objects.create(claim=claim, number=1, started_at=timezone.now(),
                                response_body='{"attribution": true}')
    return subject


__all__ = [
    "CUSTOMER",
    "GAID",
    "OTHER",
    "ca",
    "ca_bundle_path",
    "install",
    "opendsr_body",
    "private_destinations_allowed",
    "receiver_factory",
    "sdk",
    "world",
]
