"""A web app, its web key and a browser page's calls (docs/web-sdk-wire.md, "Every call")."""

from __future__ import annotations

import pytest

from tests.factories import AppFactory, issue_key
from tests.web.helpers import (
    ORIGIN,
    Page,
)


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


@pytest.fixture
def page(web_key):
    return Page(web_key)


