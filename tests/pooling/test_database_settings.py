"""The DATABASES entry for each connection mode (attribution_site/database.py), without a
database."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from attribution_site.database import database_settings, prepared_statements_default

PG = "postgres://app@db.internal:5432/attribution"


def settings_for(pool, prepared=None, url=PG, **sizes):
    if prepared is None:
        prepared = prepared_statements_default(pool)
    return database_settings(url, name="DATABASE_URL", pool=pool,
                             prepared_statements=prepared, **sizes)


def test_off_keeps_a_connection_a_minute_and_prepares_with_generic_plans():
    database = settings_for("off")
    assert database["CONN_MAX_AGE"] == 60
    assert database["OPTIONS"]["prepare_threshold"] == 2**31 - 1
    assert database["OPTIONS"]["options"] == "-c plan_cache_mode=force_generic_plan"
    assert "pool" not in database["OPTIONS"]


def test_django_pool_borrows_per_request_with_the_sizes_given():
    database = settings_for("django", pool_min_size=1, pool_max_size=5, pool_timeout=3)
    # Django refuses a pool together with persistent connections.
    assert database["CONN_MAX_AGE"] == 0
    assert database["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 5, "timeout": 3}
    assert database["OPTIONS"]["prepare_threshold"] == 2**31 - 1


def test_pgbouncer_sends_no_startup_options_and_by_default_prepares_nothing():
    database = settings_for("pgbouncer")
    assert prepared_statements_default("pgbouncer") is False
    assert database["OPTIONS"] == {}
    assert database["CONN_MAX_AGE"] == 60  # a connection to PgBouncer is cheap to keep


def test_pgbouncer_that_keeps_prepared_statements_may_have_them_without_startup_options():
    database = settings_for("pgbouncer", prepared=True)
    assert database["OPTIONS"] == {"prepare_threshold": 2**31 - 1}


def test_prepared_statements_off_leaves_psycopg_as_django_sets_it():
    assert settings_for("off", prepared=False)["OPTIONS"] == {}


@pytest.mark.parametrize("pool", ["django", "pgbouncer"])
def test_a_pool_needs_postgresql(pool):
    with pytest.raises(ImproperlyConfigured, match="needs a PostgreSQL DATABASE_URL"):
        settings_for(pool, url="sqlite:///tmp/db.sqlite3")


def test_sqlite_takes_no_postgresql_options_and_begins_transactions_with_the_write_lock():
    database = settings_for("off", url="sqlite:///tmp/db.sqlite3")
    assert database["OPTIONS"] == {"transaction_mode": "IMMEDIATE"}


@pytest.mark.parametrize("pool", ["PgBouncer-ish", "on", ""])
def test_an_unknown_mode_is_refused_with_the_modes_named(pool):
    with pytest.raises(ImproperlyConfigured, match="off, django, pgbouncer"):
        settings_for(pool, prepared=False)


def test_a_pool_smaller_than_its_minimum_is_refused():
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL_MAX_SIZE"):
        settings_for("django", pool_min_size=4, pool_max_size=2)


def test_a_bad_url_names_its_variable():
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL is not a database URL"):
        settings_for("off", url="nonsense://x")
