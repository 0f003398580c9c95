"""Prepared statements for the SDK hot paths on PostgreSQL.

Django sends every query as text with its values inlined, so PostgreSQL parses and plans each
one anew. For the waterfall's lookup the planning alone took about 0.8 ms of server time per
call (pg_stat_statements under load), twice what running it takes on a quiet machine, because
the planner probes the click indexes for the newest `clicked_at` every time. A prepared
statement is parsed and planned once per connection (a generic plan: see DATABASES in
settings.py).

Only the hot statements go through here; everything else keeps Django's client-side binding.
Set DATABASE_PREPARED_STATEMENTS=0 behind a pooler that cannot keep prepared statements
(PgBouncer before 1.21 in transaction mode). Errors come out as Django's database exceptions,
exactly as from `connection.cursor()`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections


@contextmanager
def cursor():
    """A cursor that binds values server-side and prepares what it executes."""
    wrapper = connections[DEFAULT_DB_ALIAS]  # once: every read through the proxy is a lookup
    if wrapper.vendor != "postgresql" or not settings.DATABASE_PREPARED_STATEMENTS:
        with wrapper.cursor() as plain:
            yield plain
        return
    wrapper.ensure_connection()
    with wrapper.wrap_database_errors:
        yield _hot_cursor(wrapper)


def _hot_cursor(wrapper) -> _Prepared:
    """One cursor per database connection, made when the connection is (a psycopg cursor is
    reusable after each statement, and making one copies the connection's adapters).

    It loads `timestamptz` with psycopg's own loader, which is compiled, instead of Django's
    Python subclass of it: Django's only sets the tzinfo to the connection's time zone, which
    is the session's time zone it set, so the values are the same (a tenth of a lookup's CPU
    with a dozen candidate clicks)."""
    import psycopg
    from psycopg.types.datetime import TimestamptzLoader

    raw_connection = wrapper.connection
    hot = getattr(wrapper, "_hot_cursor", None)
    if hot is None or hot.raw.connection is not raw_connection or hot.raw.closed:
        raw = psycopg.Cursor(raw_connection)
        raw.adapters.register_loader("timestamptz", TimestamptzLoader)
        hot = wrapper._hot_cursor = _Prepared(raw, wrapper)
    return hot


class _Prepared:
    """The two calls the hot paths make, each statement prepared on first use.

    Not Django's CursorWrapper: its debug variant reads the executed text back from psycopg,
    which keeps none for server-bound statements, so captured queries would read `None`."""

    def __init__(self, raw, wrapper):
        self.raw = raw
        self._wrapper = wrapper

    def execute(self, sql: str, params: Sequence) -> None:
        wrapper = self._wrapper
        run = self._run
        for execute_wrapper in reversed(wrapper.execute_wrappers):  # as Django's cursor does
            run = functools.partial(execute_wrapper, run)
        if not wrapper.queries_logged:
            run(sql, params, False, {"connection": wrapper, "cursor": self})
            return
        start = time.monotonic()  # DEBUG and CaptureQueriesContext see these queries too
        try:
            run(sql, params, False, {"connection": wrapper, "cursor": self})
        finally:
            wrapper.queries_log.append({"sql": f"{sql} -- params {list(params)!r}",
                                        "time": f"{time.monotonic() - start:.3f}"})

    def _run(self, sql, params, many, context) -> None:
        self.raw.execute(sql, params, prepare=True)

    def fetchall(self) -> list[tuple]:
        return self.raw.fetchall()


def fetch(sql: str, params: Sequence) -> list[tuple]:
    with cursor() as c:
        c.execute(sql, params)
        return c.fetchall()


def execute(sql: str, params: Sequence) -> None:
    with cursor() as c:
        c.execute(sql, params)
