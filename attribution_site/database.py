"""One database alias's Django settings from its URL and the connection mode (docs/pooling.md).
On SQLite, transactions take the write lock when they begin (below).

Three ways to hold connections, chosen with DATABASE_POOL:
- `off` (default): each web thread and worker process keeps its own connection for a minute.
- `django`: Django's psycopg pool in each process; a request borrows a connection and gives it
  back, so a process needs as many as it has threads at once, not one per thread ever started.
- `pgbouncer`: an external PgBouncer in transaction mode multiplexes every process onto a few
  server connections. Anything that outlives a transaction on the server is then unsafe: the
  startup `options` parameter (PgBouncer refuses it) and prepared statements (PgBouncer before
  1.21) are left out unless DATABASE_PREPARED_STATEMENTS=1 says the pooler keeps them. The one
  server-side cursor (exports) runs inside a transaction, so it needs no WITH HOLD and passes.
"""

from __future__ import annotations

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

POOL_MODES = ("off", "django", "pgbouncer")
PERSISTENT_SECONDS = 60

# Django turns psycopg's preparing off (threshold None), which also refuses an explicit
# prepare. Django's own cursors bind client-side and never prepare, so a threshold no statement
# reaches leaves only the hot paths' explicit prepares (attribution_site/prepared.py).
_NEVER_AUTOMATICALLY = 2**31 - 1


def prepared_statements_default(pool: str) -> bool:
    return pool != "pgbouncer"


def database_settings(url: str, *, name: str, pool: str, prepared_statements: bool,
                      pool_min_size: int = 2, pool_max_size: int = 8,
                      pool_timeout: float = 10.0) -> dict:
    """The DATABASES entry for `url`; `name` is the environment variable it came from, for
    the error messages."""
    if pool not in POOL_MODES:
        raise ImproperlyConfigured(f"DATABASE_POOL must be one of {', '.join(POOL_MODES)}, "
                                   f"got {pool!r}")
    try:
        database = dj_database_url.parse(
            url, conn_max_age=0 if pool == "django" else PERSISTENT_SECONDS)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a database URL: {exc}") from None
    if database["ENGINE"].endswith("sqlite3"):
        # Several threads write (runserver's, and the embedded default's schedule,
        # attribution_site/scheduler.py). A transaction that reads before it writes would
        # otherwise fail at once with "database is locked" when another holds the write lock
        # (SQLite refuses that upgrade rather than risk a deadlock); BEGIN IMMEDIATE takes the
        # write lock first and waits its turn (the connection's 5 s timeout).
        database.setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"
    if not database["ENGINE"].endswith("postgresql"):
        if pool != "off":
            raise ImproperlyConfigured(f"DATABASE_POOL={pool} needs a PostgreSQL {name}")
        return database
    options = database.setdefault("OPTIONS", {})
    if prepared_statements:
        options["prepare_threshold"] = _NEVER_AUTOMATICALLY
        if pool != "pgbouncer":
            # One generic plan per prepared statement instead of planning each call;
            # statements sent with their values inlined (all of Django's) plan as before.
            options["options"] = "-c plan_cache_mode=force_generic_plan"
    if pool == "django":
        if pool_max_size < pool_min_size:
            raise ImproperlyConfigured("DATABASE_POOL_MAX_SIZE must be at least "
                                       "DATABASE_POOL_MIN_SIZE")
        options["pool"] = {"min_size": pool_min_size, "max_size": pool_max_size,
                           "timeout": pool_timeout}
    return database
