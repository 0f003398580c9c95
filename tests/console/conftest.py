"""Console fixtures: a logged-in browser session (Django's test client) for the owner of an app,
and the hostile strings every page must show as text."""

from __future__ import annotations

import pytest

from tests.console.helpers import (
    console,  # noqa: F401 - a fixture
)
from tests.factories import AppFactory


@pytest.fixture
def app(owner):
    return AppFactory(organization=owner.organization)


@pytest.fixture
def outsider_app(outsider):
    return AppFactory(organization=outsider.organization)


