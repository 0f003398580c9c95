"""Reports read from a streaming replica (docs/replica.md).

With DATABASE_REPLICA_URL set, settings add the `replica` alias and `ReportsRouter` sends a
read there only when both hold:
- it runs inside `reports()` (the `ReportReads` views: analytics and exports, the console's
  report pages, the SKAdNetwork and link reports, the install explorer, the delivery logs);
- it reads a report's figures (`is_report_data`): rollups and their watermark, tracking's rows,
  delivery attempts, postbacks, deep-link opens.
Everything else reads the primary: users, sessions, apps and keys, every configuration (a
request must find what the one before it wrote), every write, and the SDK paths, which never
enter `reports()`. Without the alias the router answers "default" for everything.

Which database a report reads is decided once, when it enters `reports()`: the replica if it
answers, else the primary for the whole request (with a warning), and the failure is
remembered for RETRY_AFTER_SECONDS so that a replica that is down costs one failed connection
per process every so often, not one per request. One database per report is what makes its
`data_through` true: the rollup watermark is committed with the rollup rows, so the replica
holds both or neither (docs/replica.md, "Lag").
"""

from __future__ import annotations

import contextvars
import copy
import functools
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.utils import timezone

logger = logging.getLogger(__name__)

REPLICA = "replica"
# How long a replica that failed to answer is left alone before a report tries it again.
RETRY_AFTER_SECONDS = 15.0
CONNECT_TIMEOUT_SECONDS = 2
# /readyz warns when the replica is this far behind (and behind at all) or paused.
LAG_WARNING_SECONDS = 30.0

# The models whose rows are a report's figures: written by the SDK paths, by workers or by the
# rollup refresh, never read back by the request that wrote them. Whole apps, so that a rollup
# added later reads where its watermark does, less the settings among them.
REPORT_APPS = frozenset({"analytics", "tracking"})
REPORT_MODELS = frozenset({"delivery.delivery", "delivery.deliveryattempt", "skan.postback",
                           "skan.refusedpostback", "links.linkopen"})
NOT_REPORT_DATA = frozenset({"analytics.appreportsettings"})

# The alias this context's report reads its figures from; None outside a report.
_report_alias: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "report_alias", default=None)
_retry_at = 0.0  # monotonic time before which the replica is not tried again


def replica_settings(url: str, *, primary: dict) -> dict:
    """The `replica` alias's DATABASES entry: the host, database and login of `url` with the
    primary's engine and options (pool, prepared statements), never a test database of its
    own (tests mirror the primary), and a connect timeout (unless `url` names one) and pool
    wait of CONNECT_TIMEOUT_SECONDS, so that an unreachable replica holds a report for
    seconds, not for the system's TCP timeout or the pool's wait for the primary."""
    if not primary["ENGINE"].endswith("postgresql"):
        raise ImproperlyConfigured("DATABASE_REPLICA_URL needs a PostgreSQL DATABASE_URL")
    try:
        given = dj_database_url.parse(url)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_REPLICA_URL is not a database URL: {exc}") from None
    if given["ENGINE"] != primary["ENGINE"]:
        raise ImproperlyConfigured("DATABASE_REPLICA_URL must be a postgres:// URL")
    replica = copy.deepcopy(primary)
    replica.update({name: given[name] for name in ("NAME", "USER", "PASSWORD", "HOST", "PORT")})
    replica["OPTIONS"] = {**replica.get("OPTIONS", {}), **given.get("OPTIONS", {})}
    replica["OPTIONS"].setdefault("connect_timeout", CONNECT_TIMEOUT_SECONDS)
    if "pool" in replica["OPTIONS"]:  # a pool waits for a connection it cannot make, too
        pool = replica["OPTIONS"]["pool"]
        pool["timeout"] = min(pool.get("timeout", CONNECT_TIMEOUT_SECONDS),
                              CONNECT_TIMEOUT_SECONDS)
    replica["TEST"] = {"MIRROR": DEFAULT_DB_ALIAS}
    return replica


def configured() -> bool:
    return REPLICA in connections.settings


def report_alias() -> str:
    """The database this context reads report figures from."""
    return _report_alias.get() or DEFAULT_DB_ALIAS


@contextmanager
def reports() -> Iterator[str]:
    """Report figures read in this block come from the replica when one is configured and
    answers, else from the primary. Yields the alias chosen; a nested block keeps it."""
    alias = _report_alias.get() or _choose()
    token = _report_alias.set(alias)
    try:
        yield alias
    finally:
        _report_alias.reset(token)


@contextmanager
def primary_reads() -> Iterator[None]:
    """Inside a report, a block whose reads belong to a write (the rollup refresh an
    analytics request runs first where no beat runs): it reads the primary."""
    token = _report_alias.set(None)
    try:
        yield
    finally:
        _report_alias.reset(token)


class ReportReads:
    """A view whose reads are a report: its request runs inside `reports()`."""

    def dispatch(self, request, *args, **kwargs):
        with reports():
            return super().dispatch(request, *args, **kwargs)


def carried(iterator: Iterator) -> Iterator:
    """`iterator` run in the context it is made in. A streamed body is iterated after its
    view returned, outside `reports()`: this keeps the stream on the database the view
    chose (and its transaction, opened on the first step, on that database too)."""
    context = contextvars.copy_context()

    def steps():
        try:
            while True:
                try:
                    item = context.run(next, iterator)
                except StopIteration:
                    return
                yield item
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                context.run(close)

    return steps()


@functools.cache
def is_report_data(model) -> bool:
    label = model._meta.label_lower
    return label not in NOT_REPORT_DATA and (model._meta.app_label in REPORT_APPS
                                             or label in REPORT_MODELS)


def _choose() -> str:
    global _retry_at
    if not configured() or time.monotonic() < _retry_at:
        return DEFAULT_DB_ALIAS
    replica = connections[REPLICA]
    try:
        replica.ensure_connection()
        # A kept connection may date from before the replica restarted: one round trip
        # tells, instead of a failed report.
        if not replica.is_usable():
            replica.close()
            if replica.settings_dict["OPTIONS"].get("pool"):
                replica.close_pool()  # its other connections date from before as well
            replica.ensure_connection()
    except DatabaseError as error:
        replica.close()
        _retry_at = time.monotonic() + RETRY_AFTER_SECONDS
        logger.warning("the read replica does not answer (%s): reports read the primary for "
                       "the next %d s", str(error).strip(), RETRY_AFTER_SECONDS)
        return DEFAULT_DB_ALIAS
    return REPLICA


class ReportsRouter:
    """DATABASE_ROUTERS' one router. Never None: Django would otherwise follow a related
    object to the database its instance came from, so an app reached from an install read on
    the replica would be read there too."""

    def db_for_read(self, model, **hints) -> str:
        alias = _report_alias.get()
        if alias is None or not is_report_data(model):
            return DEFAULT_DB_ALIAS
        return alias

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # the replica is a copy of the primary: same rows, same relations

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool:
        return db != REPLICA


def complete_through() -> datetime | None:
    """Up to when the database this context reads report figures from holds every commit,
    for reports read live from raw rows. The primary: now. The replica: now when it has
    replayed everything the primary had written when asked, else the commit time of the
    last transaction it replayed (None if it has replayed none since it started)."""
    if report_alias() != REPLICA:
        return timezone.now()
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text, clock_timestamp()")
        written, asked_at = cursor.fetchone()
    with connections[REPLICA].cursor() as cursor:
        cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn, "
                       "pg_last_xact_replay_timestamp()", [written])
        caught_up, last_commit = cursor.fetchone()
    return asked_at if caught_up else last_commit


@dataclass(frozen=True)
class Lag:
    """How far the replica is behind the primary."""

    bytes: int | None  # WAL the primary has written that the replica has not replayed
    seconds: float | None  # since the last replayed commit, while behind; 0 when caught up
    paused: bool

    @property
    def state(self) -> str:
        behind = self.bytes is None or (self.bytes > 0 and (self.seconds or 0)
                                        > LAG_WARNING_SECONDS)
        return "warning" if self.paused or behind else "ok"


def replica_lag() -> Lag:
    """The replica's replay position against the primary's. Raises DatabaseError when either
    does not answer."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        (written,) = cursor.fetchone()
    with connections[REPLICA].cursor() as cursor:
        cursor.execute(
            "SELECT pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())::bigint, "
            "extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), "
            "pg_is_wal_replay_paused()", [written])
        behind, since_commit, paused = cursor.fetchone()
    if behind is not None and behind <= 0:
        behind, since_commit = 0, 0.0
    return Lag(bytes=behind, paused=paused,
               seconds=None if since_commit is None else float(since_commit))
