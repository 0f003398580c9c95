"""The API reference's behaviours, walked from outside against the service as the README
starts it, on a database of its own that nothing but the walk touches, with every product
default as it ships.

With PostgreSQL and Redis (CI's second run) that is the production shape: the README's gunicorn,
worker and beat, each a process of its own. Without them it is `make run`: the embedded default
(SQLite file, tasks in the web process). Either way the tests speak only HTTP, as an outside
run of the reference would: they sign up, create apps and keys, click, install and send events
through the API, and read what happened through the API and through real local receivers.

What the run's environment sets is the operator's side, never an app's default: the receivers
listen on this machine (private destinations allowed, their CA trusted), the service stands
behind one proxy that names the client in X-Forwarded-For (so a click and an install can come
from a public address), and retry delays and sweep intervals are short (speed knobs).
"""

from __future__ import annotations

import pytest

from tests.contract.helpers import (
    AppWithKey,
    android_app,
    owner,  # noqa: F401 - a fixture
    service,  # noqa: F401 - a fixture
)
from tests.delivery.helpers import (  # noqa: F401 - fixtures
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    receiver,
    receiver_factory,
    tls_receiver,
    trusted_ca,
)

# --- Callers ------------------------------------------------------------------------------------


@pytest.fixture
def android(owner) -> AppWithKey:  # noqa: F811 - the fixture imported above
    return android_app(owner)


# --- The SDK's and the ad network's calls -------------------------------------------------------


