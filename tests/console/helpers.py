"""Helpers shared by the console tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import pytest

XSS_CAMPAIGN = "<script>alert(1)</script>"
XSS_SOURCE = '"><img src=x onerror=alert(2)>'


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


def assert_shown_as_text(html: str) -> None:
    """The hostile strings appear escaped, never as markup."""
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x onerror=alert(2)>" not in html


__all__ = [
    "XSS_CAMPAIGN",
    "XSS_SOURCE",
    "assert_shown_as_text",
    "console",
]
