"""Helpers shared by the apple_ads tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.delivery.helpers import (  # noqa: F401 - fixtures shared with delivery's tests
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    readme_process,
    receiver_factory,
    trusted_ca,
)
from tests.delivery.receivers import Reply
from tests.factories import AppFactory

TOKEN = ("G9i5hC8lQJeGOfmS+MFycll/025oJEjtpZ+rs4AUkDEJh52fT8RrjwIR/h+2JOpXz4MRdmtcemL8WTTHfNN52t"
         "jqjbWupke40AAAAVADAAAAvQAAAIAgQF1+XF4Tl2IZ7Bw/M6ufUHt+UcIhuBeJT8YenB2v36bnZKEjvq==")
# Apple's documented record of an Apple Ads install (AdServices, "attribution record").
ATTRIBUTED = {"attribution": True, "orgId": 40669820, "campaignId": 542370539,
              "conversionType": "Download", "clickDate": "2020-04-08T17:17Z", "claimType": "Click",
              "adGroupId": 542317095, "countryOrRegion": "US", "keywordId": 87675432,
              "adId": 542317136}


def apple(status: int = 200, body: dict | None = None) -> Reply:
    """One answer of the stand-in: Apple's JSON for a 200, Apple-like error text otherwise."""
    if status == 200:
        payload = json.dumps(body if body is not None else ATTRIBUTED).encode()
        return Reply(200, payload, headers={"Content-Type": "application/json"})
    return Reply(status, b"", headers={"Content-Type": "text/plain"})


@pytest.fixture
def app(owner):
    """An iOS app: AdServices tokens come from iOS installs, and an install's platform must be
    its app's."""
    return AppFactory(organization=owner.organization, platform="ios", package_name=None,
                      bundle_id="com.example.runner")


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def ios_install(sdk, app, **fields):
    body = {"app_id": str(app.id), "platform": "ios", "sdk_version": "3.0.0",
            "device_id": "idfa-apple-1", "attribution_token": TOKEN, "att_status": "denied"}
    body.update(fields)
    return sdk.post("/api/v1/installs", body, format="json", REMOTE_ADDR="203.0.113.9")


__all__ = [
    "ATTRIBUTED",
    "TOKEN",
    "apple",
    "ios_install",
]
