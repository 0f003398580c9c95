"""Consent fixtures: an SDK client of the test app (the tracking tests' own)."""

from tests.tracking.helpers import sdk  # noqa: F401 - the fixture, shared
