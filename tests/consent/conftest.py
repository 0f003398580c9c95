"""Consent test helpers: an SDK client of the test app (the tracking tests' own)."""

from tests.tracking.conftest import sdk  # noqa: F401 - the fixture, shared
