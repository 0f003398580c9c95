"""The statements that keep the time partitions of clicks and events (PostgreSQL only; SQLite
keeps plain tables and every function here does nothing there): the hot store in weeks, the
archive and events in days. The rules (names, which ranges) are in tracking/partitions.py; the
design in docs/decisions.md, "Time partitions".

Beat runs `partitions_ensure` hourly: the partitions holding today and the days ahead, and any
day whose rows wait in a table's DEFAULT partition, are made without ever failing (rows
waiting are moved in with the same transaction). Retention (`tracking.services.clicks_prune`)
detaches and drops the hot store's expired weeks here, and the archive's and events' days past
every app's `raw_retention_days` through `partition_drop` (tracking/retention.py). DDL on a
partitioned table needs a strong lock, and a waiting lock request queues every later query
behind it, so each statement gives up after LOCK_TIMEOUT and the next run tries again: nothing
depends on it succeeding now (a missing partition only sends rows to the default partition).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from django.db import OperationalError, connection, transaction

from tracking import partitions
from tracking.models import Click, ClickArchive, Event

logger = logging.getLogger(__name__)

LOCK_TIMEOUT = "2s"
LOCK_NOT_AVAILABLE, DEADLOCK_DETECTED = "55P03", "40P01"  # SQLSTATEs
# /readyz counts a default partition's rows up to this many (it is polled; a default partition
# that filled up while beat was away must not make each poll read all of it).
DEFAULT_ROWS_CAP = 10_000


@dataclass(frozen=True)
class Partitioned:
    table: str
    column: str  # the time column: the partition key
    span: int  # the days one partition holds (partitions.DAY or WEEK)


# The hot store in weeks: the install's waterfall lookup reads a 7-day window, two partitions
# instead of eight days' (docs/decisions.md). The archive and events in days: per-app raw
# retention drops whole days of them (tracking/retention.py).
HOT_STORE = Partitioned(Click._meta.db_table, "clicked_at", partitions.WEEK)
TABLES = (HOT_STORE, Partitioned(ClickArchive._meta.db_table, "clicked_at", partitions.DAY),
          Partitioned(Event._meta.db_table, "received_at", partitions.DAY))


def in_use() -> bool:
    """Whether this database partitions the tables (PostgreSQL: migration 0009)."""
    return connection.vendor == "postgresql"


# --- Creating ---------------------------------------------------------------------------------

def partitions_ensure(*, now: datetime, since: datetime | None = None) -> list[str]:
    """Make the missing partitions of each table (holding today, AHEAD_DAYS after it, days
    with rows in the default partition, and each day from `since` on: before loading history);
    idempotent. The names made, oldest first per table. Logs a WARNING for each default
    partition that held rows."""
    if not in_use():
        return []
    made = []
    today = partitions.day_of(now)
    for target in TABLES:
        waiting = _days_in_default(target)
        if waiting:
            logger.warning("partitions: %s rows of %s are in its default partition (outside "
                           "every other partition); moving them to partitions of their own",
                           _count_default(target), target.table)
        missing = partitions.to_create(
            today=today, span=target.span, existing=periods_attached(target.table),
            waiting=waiting, since=partitions.day_of(since) if since is not None else None)
        for period in missing:
            if _create(target, period):
                made.append(partitions.partition_name(target.table, period))
        current = [period for period in periods_attached(target.table) if period.holds(today)]
        if current:
            _analyze_if_planned_empty(partitions.partition_name(target.table, current[0]))
    for table, count in (default_rows() or {}).items():
        if count:
            logger.warning("partitions: %s rows of %s are still in its default partition",
                           count, table)
    return made


def _create(target: Partitioned, period: partitions.Period) -> bool:
    """Make one period's partition and move into it the rows of it waiting in the default
    partition. Made as a table and then attached, which locks the parent only against other
    DDL (SHARE UPDATE EXCLUSIVE), not against reads and writes as `PARTITION OF` would; the
    default partition is locked for the move and for the check ATTACH makes of it."""
    name = partitions.partition_name(target.table, period)
    default = partitions.default_name(target.table)
    start, end = period.start, period.end
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [LOCK_TIMEOUT])
            cursor.execute(f"LOCK TABLE ONLY {target.table} IN SHARE UPDATE EXCLUSIVE MODE")
            cursor.execute(f"LOCK TABLE {default} IN ACCESS EXCLUSIVE MODE")
            cursor.execute("SELECT to_regclass(%s)", [name])
            if cursor.fetchone()[0] is not None:  # another run made it meanwhile
                return False
            cursor.execute(f"CREATE TABLE {name} (LIKE {target.table} INCLUDING DEFAULTS "
                           "INCLUDING CONSTRAINTS)")
            cursor.execute(
                f"WITH moved AS (DELETE FROM {default} WHERE {target.column} >= %s AND "
                f"{target.column} < %s RETURNING *) INSERT INTO {name} SELECT * FROM moved",
                [start, end])
            if cursor.rowcount:
                logger.info("partitions: moved %s rows of %s from its default partition to "
                            "%s", cursor.rowcount, target.table, name)
            cursor.execute(f"ALTER TABLE {target.table} ATTACH PARTITION {name} FOR VALUES "
                           f"FROM ('{start.isoformat()}') TO ('{end.isoformat()}')")
            _name_indexes(cursor, name, suffix=name.removeprefix(f"{target.table}_"))
    except OperationalError as error:
        if not lock_not_granted(error):
            raise
        logger.warning("partitions: could not make %s now (a lock was not granted within %s); "
                       "the next run tries again", name, LOCK_TIMEOUT, exc_info=True)
        return False
    return True


def lock_not_granted(error: OperationalError) -> bool:
    """The lock timed out (or a deadlock was broken): the statement may simply run again."""
    return getattr(error.__cause__, "sqlstate", None) in (LOCK_NOT_AVAILABLE, DEADLOCK_DETECTED)


def _analyze_if_planned_empty(name: str) -> None:
    """ANALYZE the partition holding today once rows have come while its statistics say it
    has none (never analyzed, or analyzed before its range began). The hot paths' prepared
    statements keep one generic plan per connection, made while the range was still ahead:
    for a partition the planner believed empty, a plan that scans all of it (seen: a
    sequential scan, or the time index with the device as a filter). ANALYZE invalidates
    those plans, and the next call plans with the partition's real statistics. Autovacuum
    does the same after the first rows; this run (at minute 1 of every hour, so a minute into
    each UTC day) makes it sure."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = to_regclass(%s)", [name])
        row = cursor.fetchone()
        if row is None or row[0] > 0:
            return
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {name})")
        if cursor.fetchone()[0]:
            cursor.execute(f"ANALYZE {name}")


def _name_indexes(cursor, partition: str, *, suffix: str) -> None:
    """Name the partition's indexes after the parent's (`click_device_idx_w20260309`), as
    migration 0009 does, so a plan names the model's index it reads through."""
    cursor.execute("SELECT c.relname, p.relname FROM pg_index x "
                   "JOIN pg_class c ON c.oid = x.indexrelid "
                   "JOIN pg_inherits i ON i.inhrelid = c.oid "
                   "JOIN pg_class p ON p.oid = i.inhparent "
                   "WHERE x.indrelid = %s::regclass", [partition])
    for index, parent_index in cursor.fetchall():
        cursor.execute(f"ALTER INDEX {index} RENAME TO {parent_index}_{suffix}")


# --- Reading ----------------------------------------------------------------------------------

def _attached(table: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c "
                       "ON c.oid = i.inhrelid WHERE i.inhparent = %s::regclass",
                       [table])
        return [name for (name,) in cursor.fetchall()]


def periods_attached(table: str) -> list[partitions.Period]:
    """The ranges of the partitions attached to `table` but the default (retention's drops
    read them too), oldest first."""
    periods = (partitions.partition_period(table, name) for name in _attached(table))
    return sorted(period for period in periods if period is not None)


def _days_in_default(target: Partitioned) -> list[date]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT ({target.column} AT TIME ZONE 'UTC')::date "
                       f"FROM {partitions.default_name(target.table)}")
        return [day for (day,) in cursor.fetchall()]


def _count_default(target: Partitioned) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {partitions.default_name(target.table)}")
        return cursor.fetchone()[0]


def default_rows() -> dict[str, int] | None:
    """Rows in each table's default partition, each count capped at DEFAULT_ROWS_CAP, in one
    round trip (for /readyz); None where tables are not partitioned."""
    if not in_use():
        return None
    parts = [f"(SELECT count(*) FROM (SELECT 1 FROM {partitions.default_name(t.table)} "
             f"LIMIT {DEFAULT_ROWS_CAP}) AS waiting)" for t in TABLES]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(parts)}")
        counts = cursor.fetchone()
    return {target.table: count for target, count in zip(TABLES, counts, strict=True)}


# --- Retention of the hot store ---------------------------------------------------------------

def hot_partitions_drop(*, cutoff: datetime, progress: Callable[[int], None]) -> None:
    """Detach and drop each hot-store partition wholly older than `cutoff` (its weeks, and the
    days made before it had weeks), calling `progress(rows it held)` after each. The rows are
    counted before the lock is taken, so the hot paths never wait on the count (they never
    write a past range)."""
    expired = partitions.droppable(periods_attached(HOT_STORE.table), cutoff=cutoff)
    for period in expired:
        name = partitions.partition_name(HOT_STORE.table, period)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {name}")
            (rows,) = cursor.fetchone()
        try:
            partition_drop(HOT_STORE.table, name)
        except OperationalError as error:
            if not lock_not_granted(error):
                raise
            logger.warning("prune_clicks: could not drop %s now (a lock was not granted within "
                           "%s); the next run tries again", name, LOCK_TIMEOUT, exc_info=True)
            continue
        progress(rows)


def partition_drop(table: str, name: str) -> None:
    """Detach the partition `name` from `table` and drop it, giving up after LOCK_TIMEOUT
    (OperationalError: `lock_not_granted` tells a lock that may simply be asked again)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [LOCK_TIMEOUT])
        cursor.execute(f"ALTER TABLE {table} DETACH PARTITION {name}")
        cursor.execute(f"DROP TABLE {name}")


def hot_default_delete(*, cutoff: datetime, batch_size: int) -> int:
    """Delete up to `batch_size` clicks older than `cutoff` from the hot store's default
    partition (the rows no other partition took); how many."""
    default = partitions.default_name(HOT_STORE.table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {default} WHERE id IN (SELECT id FROM {default} "
                       "WHERE clicked_at < %s LIMIT %s)", [cutoff, batch_size])
        return cursor.rowcount
