"""A web app, its web key and a browser page's calls (docs/web-sdk-wire.md, "Every call")."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from django.test import Client

from tests.factories import AppFactory, issue_key

ORIGIN = "https://shop.example"


@pytest.fixture(autouse=True)
def _fresh_flood_counts(monkeypatch):
    """Each test counts its own requests per address (the limiter's process-local counts
    would otherwise carry over from earlier tests of the same minute)."""
    from attribution_site.api import throttling

    monkeypatch.setattr(throttling, "_pending", {})


@pytest.fixture
def web_app(owner):
    return AppFactory(organization=owner.organization, platform="web", domain="shop.example",
                      package_name=None, play_store_url=None, app_store_url=None)


@pytest.fixture
def web_key(web_app):
    return issue_key(web_app, kind="web", allowed_origins=[ORIGIN])


class Page:
    """A page of ORIGIN calling the web endpoints as the script does: JSON as text/plain."""

    def __init__(self, key: str, origin: str = ORIGIN):
        self.client, self.key, self.origin = Client(), key, origin

    def post(self, path: str, body, *, key: str | None = None, origin: str | None = None,
             content_type: str = "text/plain;charset=UTF-8"):
        raw = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.client.post(f"/api/v1/web/{path}?key={key or self.key}", raw,
                                content_type=content_type,
                                HTTP_ORIGIN=origin or self.origin)

    def visit(self, web_id: str, url: str = f"{ORIGIN}/", **fields):
        body = {"web_id": web_id, "visit_id": str(uuid.uuid4()),
                "timestamp": int(time.time() * 1000), "url": url, "referrer": "",
                "sdk_version": "1.0.0", **fields}
        return self.post("visits", body)


@pytest.fixture
def page(web_key):
    return Page(web_key)


def new_web_id() -> str:
    return str(uuid.uuid4())
