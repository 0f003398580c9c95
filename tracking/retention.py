"""Retention applied to tracking's own tables (docs/privacy.md, "Retention"). The rules are
retention/policy.py's and reach these statements as plain values (the mask, the days to treat
whole), so tracking imports nothing of retention; retention/services.py calls only what is here.

Masking: past an app's `ip_retention_days` a click's or install's IP address is cut to its
network and a click's fingerprint emptied, in the hot store, the archive and installs. Always an
`UPDATE`, in batches: the row keeps its `txid` (tracking/changes.py), so the rollups, which
follow inserts, never see it again, and nothing is deleted and written back. Each function takes
the time range to cover, so a run touches only the rows that crossed the line since the last.
On PostgreSQL a partition (a day; a week of the hot store) past every app's limit is masked
whole, partition by partition, without the per-app index walk.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import OperationalError, connection, models, transaction
from django.db.models import Q

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
    reached: datetime


# --- Masking ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Masking:
    """How an address is cut: the prefixes kept, and the same rule in Python for the ORM
    statements (`address(ip)`; `network_key(ip_prefix, ip)` for a click's network key)."""

    ipv4_prefix: int
    ipv4_mapped_prefix: int
    ipv6_prefix: int
    address: Callable[[str], str]
    network_key: Callable[[str, str | None], str]

    def sql(self, ip: str) -> str:
        """The SQL expression of `ip` masked (PostgreSQL): the network of the address's
        prefix, as a plain host address."""
        bits = (f"CASE WHEN family({ip}) = 4 THEN {self.ipv4_prefix} WHEN {ip} << {_MAPPED} "
                f"THEN {self.ipv4_mapped_prefix} ELSE {self.ipv6_prefix} END")
        return f"host(network(set_masklen({ip}, {bits})))::inet"

    def key_sql(self, row: str) -> str:
        """A click's network key once masked: only a true IPv6 key (a /64) changes."""
        return (f"CASE WHEN {row}.ip_prefix <> '' AND family({row}.ip) = 6 AND NOT {row}.ip << "
                f"{_MAPPED} THEN network(set_masklen({row}.ip, {self.ipv6_prefix}))::text "
                f"ELSE {row}.ip_prefix END")

    def unmasked_sql(self, target: Stored) -> str:
        """The rows still to mask (an address not yet cut, or a fingerprint), so a batch never
        takes a row twice."""
        condition = f"ip <> {self.sql('ip')}"
        if target.fingerprint:
            condition = f"(fingerprint <> '' OR {condition})"
        return condition

    def sets_sql(self, target: Stored) -> str:
        sets = [f"ip = {self.sql('t.ip')}"]
        if target.fingerprint:
            sets += ["fingerprint = ''", f"ip_prefix = {self.key_sql('t')}"]
        return ", ".join(sets)


_MAPPED = "inet '::ffff:0.0.0.0/96'"  # IPv4-mapped IPv6 addresses


def ip_mask_app(*, target: Stored, masking: Masking, app_id: uuid.UUID,
                since: datetime | None, until: datetime, batch_size: int,
                deadline: float) -> Pass:
    """Mask the app's rows of `target` stamped in [since, until) (since None: from the first),
    in batches of `batch_size`, oldest first, stopping after the batch that passes `deadline`
    (time.monotonic())."""
    if connection.vendor == "postgresql":
        return _ip_mask_app_postgresql(target, masking, app_id, since, until, batch_size,
                                       deadline)
    return _ip_mask_app_orm(target, masking, app_id, since, until, batch_size, deadline)


def _ip_mask_app_postgresql(target, masking, app_id, since, until, batch_size,
                            deadline) -> Pass:
    column, table = target.column, target.table
    done = 0
    while True:
        lower = [since] if since is not None else []
        bounds = " AND ".join([f"{{t}}{column} >= %s"] * len(lower) + [f"{{t}}{column} < %s"])
        # The bounds are repeated on the UPDATE itself so that only the range's partitions
        # are planned, not every day the table has.
        statement = (
            f"WITH batch AS (SELECT id, {column} FROM {table} WHERE app_id = %s AND "
            f"{bounds.format(t='')} AND {masking.unmasked_sql(target)} ORDER BY {column} "
            f"LIMIT %s) UPDATE {table} AS t SET {masking.sets_sql(target)} FROM batch "
            f"WHERE t.id = batch.id AND t.{column} = batch.{column} AND "
            f"{bounds.format(t='t.')} RETURNING t.{column}")
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


def _ip_mask_app_orm(target, masking, app_id, since, until, batch_size, deadline) -> Pass:
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
        changed = [_masked_row(target, masking, row) for row in batch]
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


def _masked_row(target: Stored, masking: Masking, row: dict) -> models.Model | None:
    """The row as an instance carrying its masked values; None when it is masked already."""
    values = {"ip": (masking.address(row["ip"]) or None) if row["ip"] else row["ip"]}
    if target.fingerprint:
        values["fingerprint"] = ""
        values["ip_prefix"] = masking.network_key(row["ip_prefix"], row["ip"])
    if all(row[name] == value for name, value in values.items()):
        return None
    return target.model(id=row["id"], **values)


def partition_periods(target: Stored) -> list[partitions.Period]:
    """PostgreSQL: the ranges of `target`'s partitions, oldest first; none elsewhere (plain
    tables)."""
    if not target.partitioned or not partition_sql.in_use():
        return []
    return partition_sql.periods_attached(target.table)


def ip_mask_whole_partitions(*, target: Stored, masking: Masking,
                             periods: Iterable[partitions.Period], batch_size: int,
                             deadline: float) -> tuple[int, partitions.Period | None]:
    """PostgreSQL: mask every row, whatever its app, of the partitions of `target` for
    `periods` (oldest first: ranges past every app's limit), walking each partition by its
    primary key. (Rows masked, the last partition done whole or None.)"""
    done, reached = 0, None
    for period in periods:
        name = partitions.partition_name(target.table, period)
        statement = (
            f"WITH batch AS (SELECT id FROM {name} WHERE id > %s AND "
            f"{masking.unmasked_sql(target)} ORDER BY id LIMIT %s) UPDATE {name} AS t SET "
            f"{masking.sets_sql(target)} FROM batch "
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
                return done, reached
        reached = period
        if time.monotonic() > deadline:
            break
    return done, reached


# --- Raw rows ---------------------------------------------------------------------------------

def raw_partitions_drop(*, target: Stored, periods: Iterable[partitions.Period]) -> list[str]:
    """PostgreSQL: detach and drop the partitions of `target` for `periods` (days past every
    app's raw limit); the names dropped. A partition whose lock is not granted now waits for
    the next run, as the hot store's do."""
    dropped = []
    for period in periods:
        name = partitions.partition_name(target.table, period)
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


def oldest_partition(target: Stored) -> partitions.Period | None:
    """PostgreSQL: the oldest partition of `target` (for /readyz); None elsewhere."""
    return min(partition_periods(target), default=None)
