"""Helpers shared by the tracking tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

import pytest
from rest_framework.test import APIClient

ANDROID_BROWSER = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like "
                   "Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")
ANDROID_SDK = "Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A.231005.007)"
IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 "
                 "(KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1")
DESKTOP = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/120.0 Safari/537.36")
PUBLIC_IP = "81.2.69.142"


@pytest.fixture
def one_rate_window(monkeypatch):
    """Keep the per-second rate-limit window still, so a test's requests never straddle two
    windows however slowly the machine runs them."""
    from types import SimpleNamespace

    from attribution_site.api import throttling

    monkeypatch.setattr(throttling, "time", SimpleNamespace(time=lambda: 1_800_000_000.5))


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def click_through(client, app, *, ip=PUBLIC_IP, user_agent=ANDROID_BROWSER,
                  language="en-US,en;q=0.9", **params):
    query = {"app_id": str(app.id), **params}
    return client.get("/api/v1/clicks", query, HTTP_USER_AGENT=user_agent,
                      REMOTE_ADDR=ip, HTTP_ACCEPT_LANGUAGE=language)


def install_body(app, **overrides):
    body = {"app_id": str(app.id), "platform": "android", "sdk_version": "2.4.0"}
    body.update(overrides)
    return body


__all__ = [
    "ANDROID_BROWSER",
    "ANDROID_SDK",
    "DESKTOP",
    "IPHONE_SAFARI",
    "PUBLIC_IP",
    "click_through",
    "install_body",
    "one_rate_window",
    "sdk",
]
