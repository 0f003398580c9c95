"""Database connections in the Celery worker: kept from one task to the next, replaced when
broken (docs/decisions.md, "Worker database connections").

Celery's Django fix-up closes every database connection before and after each task, whatever
CONN_MAX_AGE says, and with Django's pool in a prefork worker it closes the whole pool. Each
task then paid for a new PostgreSQL backend: most of a delivery's 17 to 20 ms of PostgreSQL CPU
(docs/benchmarks.md). This fix-up keeps Celery's (process start, Django setup, cache closing)
and treats a task the way Django treats a request, plus a check before it:

- before a task, a connection past CONN_MAX_AGE is closed, and one that no longer answers
  (`SELECT 1`: a restarted server, a backend ended by `pg_terminate_backend` or an idle timeout)
  is closed so the task opens a new one instead of failing on it;
- after a task, a connection left broken or past its age is closed, as after a request.

The three DATABASE_POOL modes: `off` keeps the process's connection for CONN_MAX_AGE; `django`
returns it to the process's pool after each task (CONN_MAX_AGE is 0 there), and the check
borrows it before the task so a dead one is discarded by the pool; `pgbouncer` keeps the client
connection to PgBouncer, which replaces a server connection itself. Tasks run eagerly (no Redis,
or inside a request) are left to the request's handling, as Celery's fix-up leaves them.

The web processes are untouched: they skip the check (CONN_HEALTH_CHECKS stays off, a round trip
that is a third of a click's database time), while for a task it is a small part.
"""

from __future__ import annotations

import os

from celery.fixups.django import DjangoFixup, DjangoWorkerFixup
from django.db import connections


def connections_checked() -> None:
    """Before a task: every connection this process holds is young enough and answers."""
    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
        pool = conn.settings_dict.get("OPTIONS", {}).get("pool")
        # A pool may hold several dead connections (after a server restart): each one borrowed
        # and found dead is discarded by the pool on its return, until one answers or the pool
        # opens a new one.
        for _ in range(pool.get("max_size", 1) + 1 if pool else 1):
            if conn.connection is None and pool:
                conn.ensure_connection()  # borrowed now, so that it is checked here
            if conn.connection is None or conn.is_usable():
                break
            conn.close()


def connections_released() -> None:
    """After a task, as after a request: a broken or expired connection is closed."""
    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()


class ConnectionKeepingWorkerFixup(DjangoWorkerFixup):
    """Celery's worker fix-up without its closing of every connection around each task."""

    def on_task_prerun(self, sender, **kwargs) -> None:
        if not getattr(sender.request, "is_eager", False):
            connections_checked()

    def on_task_postrun(self, sender, **kwargs) -> None:
        if not getattr(sender.request, "is_eager", False):
            connections_released()
            self.close_cache()


class ConnectionKeepingFixup(DjangoFixup):
    """Celery's Django fix-up, whose worker part is the one above."""

    @property
    def worker_fixup(self) -> DjangoWorkerFixup:
        if self._worker_fixup is None:  # made when the worker starts, once settings are read
            self._worker_fixup = ConnectionKeepingWorkerFixup(self.app)
        return self._worker_fixup


def fixup(app, env: str = "DJANGO_SETTINGS_MODULE") -> DjangoFixup | None:
    """In place of Celery's built-in Django fix-up (`Celery(fixups=...)`), installed under the
    same condition: a Django settings module is named."""
    if not os.environ.get(env):
        return None
    return ConnectionKeepingFixup(app).install()
