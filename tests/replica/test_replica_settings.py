"""The `replica` alias DATABASE_REPLICA_URL makes (attribution_site/replica.py): the replica's
address with the primary's engine options, and a bad value refused at start-up."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from attribution_site.database import database_settings
from attribution_site.replica import CONNECT_TIMEOUT_SECONDS, replica_settings

PRIMARY_URL = "postgres://app:secret@primary.internal:5432/attribution"
REPLICA_URL = "postgres://reader:other@replica.internal:6432/attribution"


def primary(pool: str = "off") -> dict:
    return database_settings(PRIMARY_URL, name="DATABASE_URL", pool=pool,
                             prepared_statements=pool != "pgbouncer", pool_timeout=10)


def test_the_replica_has_its_own_address_and_the_primarys_options():
    replica = replica_settings(REPLICA_URL, primary=primary())
    assert (replica["HOST"], replica["PORT"], replica["USER"], replica["PASSWORD"],
            replica["NAME"]) == ("replica.internal", 6432, "reader", "other", "attribution")
    assert replica["ENGINE"] == "django.db.backends.postgresql"
    assert replica["CONN_MAX_AGE"] == primary()["CONN_MAX_AGE"]
    assert replica["OPTIONS"] == {**primary()["OPTIONS"],
                                  "connect_timeout": CONNECT_TIMEOUT_SECONDS}
    assert replica["TEST"] == {"MIRROR": "default"}  # tests never create a database on it


def test_the_primarys_settings_are_left_as_they_were():
    settings = primary("django")
    before = repr(settings)
    replica_settings(REPLICA_URL, primary=settings)
    assert repr(settings) == before


def test_a_pooled_replica_waits_seconds_for_a_connection_it_cannot_make():
    replica = replica_settings(REPLICA_URL, primary=primary("django"))
    assert replica["OPTIONS"]["pool"]["timeout"] == CONNECT_TIMEOUT_SECONDS
    assert replica["OPTIONS"]["pool"]["max_size"] == primary("django")["OPTIONS"]["pool"][
        "max_size"]


def test_the_urls_own_connection_options_win():
    replica = replica_settings(REPLICA_URL + "?connect_timeout=7&sslmode=require",
                               primary=primary())
    assert replica["OPTIONS"]["connect_timeout"] == 7
    assert replica["OPTIONS"]["sslmode"] == "require"


@pytest.mark.parametrize("url", ["sqlite:///reports.sqlite3", "mysql://u@h/db", "not a url"])
def test_a_replica_url_that_is_not_postgresql_is_refused(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_REPLICA_URL"):
        replica_settings(url, primary=primary())


def test_a_replica_needs_a_postgresql_primary():
    sqlite = database_settings("sqlite:///db.sqlite3", name="DATABASE_URL", pool="off",
                               prepared_statements=True)
    with pytest.raises(ImproperlyConfigured, match="PostgreSQL DATABASE_URL"):
        replica_settings(REPLICA_URL, primary=sqlite)
