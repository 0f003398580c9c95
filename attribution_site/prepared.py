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
from django.db import connection


@contextmanager
def cursor():
    """A cursor that binds values server-side and prepares what it executes."""
    if connection.vendor != "postgresql" or not settings.DATABASE_PREPARED_STATEMENTS:
        with connection.cursor() as plain:
            yield plain
        return
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as raw:
        yield _Prepared(raw)


class _Prepared:
    """The two calls the hot paths make, each statement prepared on first use.

    Not Django's CursorWrapper: its debug variant reads the executed text back from psycopg,
    which keeps none for server-bound statements, so captured queries would read `None`."""

    def __init__(self, raw):
        self._raw = raw

    def execute(self, sql: str, params: Sequence) -> None:
        run = self._run
        for wrapper in reversed(connection.execute_wrappers):  # as Django's cursor honours them
            run = functools.partial(wrapper, run)
        if not connection.queries_logged:
            run(sql, params, False, {"connection": connection, "cursor": self})
            return
        start = time.monotonic()  # DEBUG and CaptureQueriesContext see these queries too
        try:
            run(sql, params, False, {"connection": connection, "cursor": self})
        finally:
            connection.queries_log.append({"sql": f"{sql} -- params {list(params)!r}",
                                           "time": f"{time.monotonic() - start:.3f}"})

    def _run(self, sql, params, many, context) -> None:
        self._raw.execute(sql, params, prepare=True)

    def fetchall(self) -> list[tuple]:
        return self._raw.fetchall()


def fetch(sql: str, params: Sequence) -> list[tuple]:
    with cursor() as c:
        c.execute(sql, params)
        return c.fetchall()


def execute(sql: str, params: Sequence) -> None:
    with cursor() as c:
        c.execute(sql, params)
