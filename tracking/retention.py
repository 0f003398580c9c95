"""Retention applied to tracking's own tables (docs/privacy.md, "Retention"; the rules are in
retention/policy.py, the schedule in retention/services.py, which calls only the functions
here).

Masking: past an app's `ip_retention_days` a click's or install's IP address is cut to its
network and a click's fingerprint emptied, in the hot store, the archive and installs. Always an
`UPDATE`, in batches: the row keeps its `txid` (tracking/changes.py), so the rollups, which
follow inserts, never see it again, and nothing is deleted and written back. Each function takes
the time range to cover, so a run touches only the rows that crossed the line since the last.
On PostgreSQL a day partition past every app's limit is masked whole, partition by partition,
without the per-app index walk.

Raw rows: past `raw_retention_days` archived clicks and events go. On PostgreSQL a day
partition past every app's limit is detached and dropped (constant time, like the hot store's
pruning, tracking/partition_sql.py); an app with a shorter limit has its rows deleted in
batches, which is all SQLite does.

Each statement has its PostgreSQL form first and its ORM form below, as in tracking/sql.py.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db import OperationalError, connection, models, transaction
from django.db.models import Q

from retention import policy
from tracking import partition_sql, partitions
from tracking.models import Click, ClickArchive, Event, Install

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stored:
    """A table holding personal data: its stable name (retention's progress rows name it),
    model and time column (the partition key where partitioned)."""

    name: str
    model: type[models.Model]
    column: str
    fingerprint: bool = False  # a click: fingerprint and network key besides the address
    partitioned: bool = False

    @property
    def table(self) -> str:
        return self.model._meta.db_table


HOT_STORE = Stored("clicks", Click, "clicked_at", fingerprint=True, partitioned=True)
ARCHIVE = Stored("click_archive", ClickArchive, "clicked_at", fingerprint=True, partitioned=True)
INSTALLS = Stored("installs", Install, "installed_at")
EVENTS = Stored("events", Event, "received_at", partitioned=True)
# Every table with an IP address or a fingerprint (links' opens and the delivery logs hold
# neither; events hold none: docs/privacy.md, "What is stored").
WITH_ADDRESSES = (HOT_STORE, ARCHIVE, INSTALLS)
# The raw rows raw_retention_days limits. Installs are the attribution record itself (a repeat
# install is answered from it) and are kept while the app is: docs/privacy.md.
RAW = (ARCHIVE, EVENTS)


@dataclass(frozen=True)
class Pass:
    """What one call did: rows changed, and up to when the range is done (`until` when all of
    it; earlier when the deadline stopped it)."""

    rows: int
    reached: datetime | None


# --- Masking ----------------------------------------------------------------------------------

_MAPPED = "inet '::ffff:0.0.0.0/96'"  # IPv4-mapped IPv6 addresses


def masked_sql(ip: str) -> str:
    """policy.masked_ip in SQL (PostgreSQL): the network of the address's prefix, as a plain
    host address. Public for the test that checks the two agree."""
    bits = (f"CASE WHEN family({ip}) = 4 THEN {policy.IPV4_PREFIX} WHEN {ip} << {_MAPPED} "
            f"THEN {policy.IPV4_MAPPED_PREFIX} ELSE {policy.IPV6_PREFIX} END")
    return f"host(network(set_masklen({ip}, {bits})))::inet"


def masked_key_sql(row: str) -> str:
    """policy.masked_network_key in SQL: only a true IPv6 key (a /64) changes, to the /48."""
    return (f"CASE WHEN {row}.ip_prefix <> '' AND family({row}.ip) = 6 AND NOT {row}.ip << "
            f"{_MAPPED} THEN network(set_masklen({row}.ip, {policy.IPV6_PREFIX}))::text "
            f"ELSE {row}.ip_prefix END")


def _unmasked(target: Stored) -> str:
    """The rows still to mask (an address not yet cut, or a fingerprint), so a batch never
    takes a row twice."""
    condition = f"ip <> {masked_sql('ip')}"
    if target.fingerprint:
        condition = f"(fingerprint <> '' OR {condition})"
    return condition


def _sets(target: Stored) -> str:
    sets = [f"ip = {masked_sql('t.ip')}"]
    if target.fingerprint:
        sets += ["fingerprint = ''", f"ip_prefix = {masked_key_sql('t')}"]
    return ", ".join(sets)


def ip_mask_app(*, target: Stored, app_id: uuid.UUID, since: datetime | None, until: datetime,
                batch_size: int, deadline: float) -> Pass:
    """Mask the app's rows of `target` stamped in [since, until) (since None: from the first),
    in batches of `batch_size`, oldest first, stopping after the batch that passes `deadline`
    (time.monotonic())."""
    if connection.vendor == "postgresql":
        return _ip_mask_app_postgresql(target, app_id, since, until, batch_size, deadline)
    return _ip_mask_app_orm(target, app_id, since, until, batch_size, deadline)


def _ip_mask_app_postgresql(target, app_id, since, until, batch_size, deadline) -> Pass:
    column, table = target.column, target.table
    done = 0
    while True:
        lower = [since] if since is not None else []
        bounds = " AND ".join([f"{{t}}{column} >= %s"] * len(lower) + [f"{{t}}{column} < %s"])
        # The bounds are repeated on the UPDATE itself so that only the range's partitions
        # are planned, not every day the table has.
        statement = (
            f"WITH batch AS (SELECT id, {column} FROM {table} WHERE app_id = %s AND "
            f"{bounds.format(t='')} AND {_unmasked(target)} ORDER BY {column} LIMIT %s) "
            f"UPDATE {table} AS t SET {_sets(target)} FROM batch WHERE t.id = batch.id AND "
            f"t.{column} = batch.{column} AND {bounds.format(t='t.')} RETURNING t.{column}")
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [app_id, *lower, until, batch_size, *lower, until])
            stamps = [stamp for (stamp,) in cursor.fetchall()]
        done += len(stamps)
        if len(stamps) < batch_size:  # nothing unmasked is left in the range
            return Pass(done, until)
        # Every unmasked row before the batch's last stamp was in it (oldest first); rows at
        # that very instant may remain, so the next batch starts there, not after it.
        since = max(stamps)
        if time.monotonic() > deadline:
            return Pass(done, since)


def _ip_mask_app_orm(target, app_id, since, until, batch_size, deadline) -> Pass:
    column = target.column
    rows = target.model.objects.filter(app_id=app_id, **{f"{column}__lt": until})
    if since is not None:
        rows = rows.filter(**{f"{column}__gte": since})
    rows = rows.filter(ip__isnull=False) if not target.fingerprint else rows.filter(
        Q(ip__isnull=False) | ~Q(fingerprint=""))
    fields = ["id", column, "ip"] + (["fingerprint", "ip_prefix"] if target.fingerprint else [])
    done, after = 0, None
    while True:
        page = rows.order_by(column, "id")
        if after is not None:  # keyset: (stamp, id) after the last row read
            page = page.filter(Q(**{f"{column}__gt": after[0]})
                               | Q(**{column: after[0], "id__gt": after[1]}))
        batch = list(page.values(*fields)[:batch_size])
        changed = [_masked_row(target, row) for row in batch]
        changed = [row for row in changed if row is not None]
        if changed:
            target.model.objects.bulk_update(
                changed, ["ip", "fingerprint", "ip_prefix"] if target.fingerprint else ["ip"])
        done += len(changed)
        if len(batch) < batch_size:
            return Pass(done, until)
        after = (batch[-1][column], batch[-1]["id"])
        if time.monotonic() > deadline:
            return Pass(done, after[0])


def _masked_row(target: Stored, row: dict) -> models.Model | None:
    """The row as an instance carrying its masked values; None when it is masked already."""
    values = {"ip": (policy.masked_ip(row["ip"]) or None) if row["ip"] else row["ip"]}
    if target.fingerprint:
        values["fingerprint"] = ""
        values["ip_prefix"] = policy.masked_network_key(row["ip_prefix"], row["ip"])
    if all(row[name] == value for name, value in values.items()):
        return None
    return target.model(id=row["id"], **values)


def ip_mask_whole_days(*, target: Stored, done_before: datetime | None,
                       cutoff: datetime | None, batch_size: int, deadline: float) -> Pass:
    """PostgreSQL: mask every row, whatever its app, of each day partition of `target` that
    starts at or after `done_before` (None: every one) and ends by `cutoff` (the common
    cutoff: every app's limit has passed all of the day), walking each partition by its
    primary key. `reached`: the end of the last day done whole (`done_before` when none was).
    Nothing on SQLite, whose per-app pass does it all."""
    if not target.partitioned or not partition_sql.in_use():
        return Pass(0, done_before)
    done, reached = 0, done_before
    for day in policy.whole_days(partition_sql.days_attached(target.table), cutoff=cutoff):
        if done_before is not None and partitions.day_start(day) < done_before:
            continue
        name = partitions.partition_name(target.table, day)
        statement = (
            f"WITH batch AS (SELECT id FROM {name} WHERE id > %s AND {_unmasked(target)} "
            f"ORDER BY id LIMIT %s) UPDATE {name} AS t SET {_sets(target)} FROM batch "
            "WHERE t.id = batch.id RETURNING t.id")
        last = uuid.UUID(int=0)
        while True:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(statement, [last, batch_size])
                ids = [row_id for (row_id,) in cursor.fetchall()]
            done += len(ids)
            if len(ids) < batch_size:
                break
            last = max(ids)
            if time.monotonic() > deadline:
                return Pass(done, reached)
        reached = partitions.day_start(day + timedelta(days=1))
        if time.monotonic() > deadline:
            break
    return Pass(done, reached)


# --- Raw rows ---------------------------------------------------------------------------------

def raw_days_drop(*, target: Stored, cutoff: datetime | None) -> list[str]:
    """PostgreSQL: detach and drop each day partition of `target` wholly before `cutoff` (the
    common raw cutoff); the names dropped. A partition whose lock is not granted now waits for
    the next run, as the hot store's do."""
    if not partition_sql.in_use():
        return []
    dropped = []
    for day in policy.whole_days(partition_sql.days_attached(target.table), cutoff=cutoff):
        name = partitions.partition_name(target.table, day)
        try:
            partition_sql.partition_drop(target.table, name)
        except OperationalError as error:
            if not partition_sql.lock_not_granted(error):
                raise
            logger.warning("retention: could not drop %s now (a lock was not granted within "
                           "%s); the next run tries again", name, partition_sql.LOCK_TIMEOUT)
            continue
        dropped.append(name)
    return dropped


def raw_delete_app(*, target: Stored, app_id: uuid.UUID, before: datetime, batch_size: int,
                   deadline: float) -> int:
    """Delete the app's rows of `target` stamped before `before`, in batches; how many. What
    partitions were dropped leaves nothing here to find, so on PostgreSQL this deletes only
    the rows of apps whose limit is shorter than another app's (and the default partition's)."""
    done = 0
    while True:
        if connection.vendor == "postgresql":
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    f"DELETE FROM {target.table} WHERE (id, {target.column}) IN (SELECT id, "
                    f"{target.column} FROM {target.table} WHERE app_id = %s AND "
                    f"{target.column} < %s LIMIT %s)", [app_id, before, batch_size])
                count = cursor.rowcount
        else:
            ids = list(target.model.objects.filter(
                app_id=app_id, **{f"{target.column}__lt": before})
                .values_list("id", flat=True)[:batch_size])
            count = target.model.objects.filter(id__in=ids).delete()[0] if ids else 0
        done += count
        if count < batch_size or time.monotonic() > deadline:
            return done


def oldest_day(target: Stored) -> date | None:
    """PostgreSQL: the oldest day partition of `target` (for /readyz); None elsewhere."""
    if not partition_sql.in_use():
        return None
    return min(partition_sql.days_attached(target.table), default=None)
