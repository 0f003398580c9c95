"""Shared fixtures. Tests run on whatever DATABASE_URL/REDIS_URL name (PostgreSQL and Redis in
CI); a test marked `redis` or `worker` is skipped without Redis (`postgres` without PostgreSQL,
`node` without Node.js, `browser` without Chromium and Playwright, `pgbouncer` without
PgBouncer, `replica` without the PostgreSQL server programs that make a primary and replica
pair), and with REQUIRE_SERVICES=1 such a skip is an error instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import threading
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User
from attribution_site import local_cache, redis_clients
from tests.factories import AppFactory, UserFactory, issue_key
from tests.helpers import (
    REQUIRE_SERVICES,
    client_for,
)
from tests.pooling import pgbouncer
from tests.replica.cluster import server_bindir


def pytest_configure(config):
    config.addinivalue_line("markers", "replica: starts its own PostgreSQL primary and "
                                       "streaming replica (tests/replica/cluster.py)")
    if REQUIRE_SERVICES:
        engine = settings.DATABASES["default"]["ENGINE"]
        if engine != "django.db.backends.postgresql" or not settings.REDIS_URL:
            raise pytest.UsageError(
                "REQUIRE_SERVICES=1 needs DATABASE_URL=postgres://... and REDIS_URL=redis://...")


def pytest_collection_modifyitems(config, items):
    missing = []
    if not settings.REDIS_URL:
        missing.append(("redis", "needs Redis: set REDIS_URL"))
        missing.append(("worker", "needs Redis and a Celery worker: set REDIS_URL"))
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing.append(("postgres", "needs PostgreSQL: set DATABASE_URL=postgres://..."))
    if shutil.which("node") is None:
        missing.append(("node", "needs Node.js: install node"))
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        missing.append(("browser", f"needs Chromium at {chromium}: apt-get install chromium "
                                   "(or set CHROMIUM to its path)"))
    elif importlib.util.find_spec("playwright") is None:
        missing.append(("browser", "needs Playwright for Python: make install"))
    if pgbouncer.binary() is None:
        missing.append(("pgbouncer", "needs PgBouncer: apt-get install pgbouncer"))
    if server_bindir() is None:
        missing.append(("replica", "needs PostgreSQL's server programs (initdb, pg_ctl, "
                                   "pg_basebackup): apt-get install postgresql-15"))
    for item in items:
        for marker, reason in missing:
            if marker in item.keywords:
                if REQUIRE_SERVICES:
                    raise pytest.UsageError(f"{item.nodeid} would be skipped: {reason}")
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _fast_hashing_and_clean_cache(settings):
    # Speed knob only: the default PBKDF2 makes every sign-up and login take ~0.3 s.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    redis_clients.reset()
    cache.clear()
    local_cache.clear_all()
    yield
    redis_clients.reset()  # a test that made Redis fail must not leave the next one without it
    cache.clear()
    local_cache.clear_all()


@pytest.fixture
def live_local_caches():
    """This process's local caches keep what they read (attribution_site/local_cache.py), as
    in production: their subscription to the invalidation channel is up. Needs Redis."""
    import time

    local_cache._subscription.ensure_started()
    deadline = time.monotonic() + 10
    while not local_cache._subscription.trusted():
        assert time.monotonic() < deadline, "the local cache subscription did not come up"
        time.sleep(0.02)


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def owner(db):
    return UserFactory(email="owner@example.com")


@pytest.fixture
def outsider(db):
    return UserFactory(email="outsider@example.org")


@pytest.fixture
def owner_api(owner):
    return client_for(owner)


@pytest.fixture
def outsider_api(outsider):
    return client_for(outsider)


@pytest.fixture
def operator_client(client, db):
    """The test client logged in as a superuser: an operator in the Django admin."""
    operator = User.objects.create_superuser("ops@example.com", "operator-password")
    client.force_login(operator)
    return client


@pytest.fixture
def app(owner):
    return AppFactory(organization=owner.organization)


@pytest.fixture
def sdk_key(app):
    return issue_key(app)


@pytest.fixture
def hung_redis():
    """A local server that accepts connections and never answers: a Redis that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    yield SimpleNamespace(url=f"redis://127.0.0.1:{server.getsockname()[1]}/0",
                          accepted=accepted)
    server.close()
    for connection in accepted:
        connection.close()
