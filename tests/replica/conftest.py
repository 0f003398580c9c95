"""Replica fixtures: a `replica` alias added to this process's connections for one test (onto
the test database itself, or onto an address where nothing answers as a replica should), and
the real PostgreSQL primary and streaming replica pair for the end-to-end tests (cluster.py).

The alias fixtures open connections without a Django test case around them (whose guard
refuses an alias it did not know when it started) and write nothing: they are for the
router's decisions. Reports read end to end are in test_streaming_replica.py.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dj_database_url
import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from attribution_site import replica
from tests.replica.cluster import replica_pair, server_bindir


@contextmanager
def replica_alias(settings_dict: dict) -> Iterator[None]:
    """`replica` in this process's connections, as DATABASE_REPLICA_URL would put it there."""
    configured = connections.configure_settings(
        {DEFAULT_DB_ALIAS: connections.settings[DEFAULT_DB_ALIAS],
         replica.REPLICA: settings_dict})
    connections.settings[replica.REPLICA] = configured[replica.REPLICA]
    replica._retry_at = 0.0
    try:
        yield
    finally:
        connections[replica.REPLICA].close()
        del connections[replica.REPLICA]
        del connections.settings[replica.REPLICA]
        replica._retry_at = 0.0


@pytest.fixture
def mirror_replica(django_db_setup, django_db_blocker) -> Iterator[None]:
    """A `replica` alias onto the test database: a second connection that answers, as a
    replica that has caught up does."""
    with django_db_blocker.unblock(), replica_alias(
            dict(connections[DEFAULT_DB_ALIAS].settings_dict)):
        yield


@pytest.fixture
def dead_replica(django_db_blocker) -> Iterator[list]:
    """A `replica` alias whose server accepts a connection and closes it at once: every
    attempt to use it fails. Yields the list of connections it was asked for."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list = []

    def serve():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    url = f"postgres://postgres@127.0.0.1:{server.getsockname()[1]}/attribution"
    try:
        with django_db_blocker.unblock(), replica_alias(replica.replica_settings(
                url, primary=dj_database_url.parse("postgres://postgres@127.0.0.1/x"))):
            yield accepted
    finally:
        server.close()


@pytest.fixture(scope="session")
def pair():
    """A running PostgreSQL primary and streaming replica, for the whole session."""
    with replica_pair(server_bindir()) as running:
        yield running
