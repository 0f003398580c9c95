"""Delivery fixtures: local receivers (HTTP, and HTTPS through a trustme CA), the publishing of
domain events the way tracking does it, a real Celery worker on the real Redis broker, and the
README's worker and beat commands run as processes of their own.

A test that sends to a local receiver asks for one, and with it for private destinations
(OUTBOUND_ALLOW_PRIVATE_NETWORKS, off in production): the receivers listen on 127.0.0.1. Every
other test runs under the production default.
"""

from __future__ import annotations

import pytest

from delivery import readiness as delivery_readiness
from tests.delivery.helpers import (
    ca,  # noqa: F401 - a fixture
    ca_bundle_path,  # noqa: F401 - a fixture
    private_destinations_allowed,  # noqa: F401 - a fixture
    purge_delivery_queue,
    readme_process,  # noqa: F401 - a fixture
    receiver,  # noqa: F401 - a fixture
    receiver_factory,  # noqa: F401 - a fixture
    running_worker,
    tls_receiver,  # noqa: F401 - a fixture
    trusted_ca,  # noqa: F401 - a fixture
)

# --- Configurations and facts -------------------------------------------------------------------


# --- A real worker -----------------------------------------------------------------------------


@pytest.fixture
def celery_worker():
    purge_delivery_queue()
    with running_worker() as worker:
        yield worker


@pytest.fixture
def fresh_worker_answer(monkeypatch):
    """/readyz asks the workers again rather than reuse an answer kept from another test."""
    monkeypatch.setattr(delivery_readiness, "_answer", None)


# --- The README's processes, for real -----------------------------------------------------------


