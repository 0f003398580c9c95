"""Helpers shared by the fraud tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tracking import services

BROWSER = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/120.0.0.0 Mobile Safari/537.36")


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def click(app, *, seconds_ago: float, source: str = "network_a", device: str | None = "gaid-1",
          ip: str = "81.2.69.142", campaign: str = "summer"):
    """A click stored as the click endpoint stores it, made `seconds_ago` before now."""
    return services.click_record(click=services.ClickInput(
        app_id=app.id, campaign_id=campaign, media_source=source, adset="", ad="",
        advertising_id=device, ip=ip, user_agent=BROWSER, accept_language="en",
        clicked_at=timezone.now() - timedelta(seconds=seconds_ago)))


def install(sdk, app, *, device: str = "gaid-1", **extra):
    body = {"app_id": str(app.id), "platform": "android", "sdk_version": "6.0.0",
            "device_id": device, **extra}
    return sdk.post("/api/v1/installs", body, format="json")


__all__ = [
    "click",
    "install",
]
