"""Helpers shared by the networks.google tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
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
from tracking import services as tracking_services

DEV_TOKEN = "dev-token-Ab3_x"
LINK_ID = "27F969CF085D78555060DE2216FC720A"
GAID = "38400000-8cf0-11bd-b23e-10b96e40000d"
GCLID = "Cj0KCQjw-example-gclid_123"
# The conversion answer of Google's specification: an attributed first_open with its ad event.
AD_EVENT = {
    "ad_event_id": "Q2owS0VRancxcnZCVGpOdWU0VGcxM2V4YU55ZnNIS0M",
    "conversion_metric": "conversion", "interaction_type": "engagement",
    "campaign_type": "UAC", "campaign_id": 123456789, "campaign_name": "My App Campaign",
    "ad_type": "ClickToDownload", "external_customer_id": 123456789, "location": 21144,
    "network_type": "Search", "network_subtype": "GoogleSearch", "video_id": None,
    "keyword": None, "match_type": None, "placement": None, "ad_group_id": 987654321,
    "ad_group_name": "Ad group 1", "creative_id": None, "timestamp": 1432681913.123456,
}
ATTRIBUTED = {"ad_events": [AD_EVENT], "errors": [], "attributed": True}
NOT_ATTRIBUTED = {"ad_events": [], "errors": [], "attributed": False}


def google(status: int = 200, body: dict | None = None) -> Reply:
    """One answer of the stand-in: Google's JSON, or an error status with a short body."""
    if status == 200:
        payload = json.dumps(body if body is not None else ATTRIBUTED).encode()
        return Reply(200, payload, headers={"Content-Type": "application/json"})
    return Reply(status, b'{"errors": ["refused"]}', headers={"Content-Type": "application/json"})


@pytest.fixture
def google_api(receiver_factory, trusted_ca, settings):  # noqa: F811 - imported above
    """Start the stand-in with a script of answers; GOOGLE_ADS_API_URL points at it."""
    def start(*replies: Reply, default: Reply | None = None):
        stand_in = receiver_factory(*replies, tls=True, default=default or google(500))
        settings.GOOGLE_ADS_API_URL = stand_in.url("/").rstrip("/")
        settings.GOOGLE_ADS_DEVELOPER_TOKEN = DEV_TOKEN
        return stand_in
    return start


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def record_click(app, *, media_source="network_a", campaign_id="ours", device=None,
                 minutes_ago=30):
    return tracking_services.click_record(click=tracking_services.ClickInput(
        app_id=app.id, campaign_id=campaign_id, media_source=media_source, adset="", ad="",
        advertising_id=device, ip="198.51.100.7", user_agent="Mozilla/5.0 (Linux; Android 14)",
        accept_language="en-US", clicked_at=timezone.now() - timedelta(minutes=minutes_ago)))


def android_install(sdk, app, **fields):
    body = {"app_id": str(app.id), "platform": "android", "sdk_version": "3.1.0",
            "device_id": GAID, "os_version": "14", "device_model": "Pixel 8"}
    body.update(fields)
    return sdk.post("/api/v1/installs", body, format="json", REMOTE_ADDR="203.0.113.9",
                    HTTP_USER_AGENT="Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP1A)")


__all__ = [
    "AD_EVENT",
    "ATTRIBUTED",
    "DEV_TOKEN",
    "GAID",
    "GCLID",
    "LINK_ID",
    "NOT_ATTRIBUTED",
    "android_install",
    "google",
    "google_api",
    "record_click",
    "sdk",
]
