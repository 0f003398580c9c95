"""Privacy fixtures: OpenDSR request bodies, the delivery tests' real local receivers (HTTP and
HTTPS through a trustme CA), and a subject with rows in every table an erasure touches."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from tests.delivery.conftest import (  # noqa: F401 - fixtures
    ca,
    ca_bundle_path,
    receiver_factory,
    trusted_ca,
)


@pytest.fixture(autouse=True)
def _private_networks_for_local_receivers(settings):
    settings.DELIVERY_ALLOW_PRIVATE_NETWORKS = True


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
