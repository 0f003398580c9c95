"""Console fixtures: a logged-in browser session (Django's test client) for the owner of an app,
and the hostile strings every page must show as text."""

from __future__ import annotations

import pytest

from tests.factories import AppFactory

XSS_CAMPAIGN = "<script>alert(1)</script>"
XSS_SOURCE = '"><img src=x onerror=alert(2)>'


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def app(owner):
    return AppFactory(organization=owner.organization)


@pytest.fixture
def outsider_app(outsider):
    return AppFactory(organization=outsider.organization)


def assert_shown_as_text(html: str) -> None:
    """The hostile strings appear escaped, never as markup."""
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x onerror=alert(2)>" not in html
