"""Helpers shared by the tests tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import os

from rest_framework.test import APIClient

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def served_from_memory(read) -> bool:
    """Whether `read()` ran without a database query, waiting a little for this process's own
    invalidation messages to come back first (each drops the copy once more)."""
    import time

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        read()
        with CaptureQueriesContext(connection) as queries:
            read()
        if not queries:
            return True
        time.sleep(0.02)
    return False


def client_for(user) -> APIClient:
    from accounts.services import access_token_issue

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {access_token_issue(user=user)}")
    return client


__all__ = [
    "REQUIRE_SERVICES",
    "client_for",
    "served_from_memory",
]
