"""Tracking fixtures; real User-Agents, the click helper and the SDK client are in helpers.py."""

from tests.tracking.helpers import (
    one_rate_window,  # noqa: F401 - a fixture
    sdk,  # noqa: F401 - a fixture
)


