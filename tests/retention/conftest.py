"""Rows with addresses on a clock the tests control: NOW is fixed, every row is stamped
relative to it, and enforcement runs with `now=` (retention_enforce takes the clock)."""

from __future__ import annotations

import pytest

from tests.retention.helpers import (
    now,  # noqa: F401 - a fixture
)


@pytest.fixture
def logged_in(client, owner):
    """The owner's console session (Django's test client)."""
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client
