"""Privacy fixtures: OpenDSR request bodies, the delivery tests' real local receivers (HTTP and
HTTPS through a trustme CA), and a subject with rows in every table an erasure touches."""

from __future__ import annotations

from tests.delivery.helpers import (  # noqa: F401 - fixtures
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    readme_process,
    receiver_factory,
    trusted_ca,
)
from tests.privacy.helpers import (
    sdk,  # noqa: F401 - a fixture
    world,  # noqa: F401 - a fixture
)


