"""How far a reader has seen tracking's tables, in commit order (docs/analytics.md, "Rollups
kept current by adding what committed, in commit order").

A `Watermark` is taken from the database, never from a clock, so a row written by a server
whose clock lags, or stamped days in the past by an import, is still found: what counts is
when the row committed, and only the database knows that.

PostgreSQL: every install, archived click and event carries the id of the transaction that
wrote it (`txid`, a column default, see migration 0003). A watermark is a transaction snapshot
(`pg_current_snapshot()`): every transaction below `xmin` has ended, the ones in `xip` were
still running, and none from `xmax` on had started. A row is seen by the watermark when its
transaction had committed by then; transaction ids are handed out at first write, so a row
whose id is below another's can commit after it, and the snapshot is what tells the two apart.
Rows from before the column existed (NULL) count as seen by every watermark.

SQLite: one writer at a time, so a table's largest rowid at the moment of reading bounds
everything committed; a watermark keeps one such number per table (as xmin = xmax, no xip).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection
from django.db.models import BigIntegerField, Q, QuerySet
from django.db.models.expressions import RawSQL

from tracking.models import ClickArchive, Event, Install

TABLES = {"installs": Install, "clicks": ClickArchive, "events": Event}


@dataclass(frozen=True)
class Horizon:
    """One table's bound: ids below xmin ended; ids in xip were running; none from xmax on
    had ended, but `own`, the reader's own transaction, whose rows it sees."""

    xmin: int
    xmax: int
    xip: tuple[int, ...] = ()
    own: int | None = None


@dataclass(frozen=True)
class Watermark:
    """What had committed in tracking's tables at `taken_at` (the database's clock)."""

    horizons: dict[str, Horizon]
    taken_at: datetime

    def to_json(self) -> dict:
        return {"taken_at": self.taken_at.isoformat(),
                "horizons": {name: [h.xmin, h.xmax, list(h.xip), h.own]
                             for name, h in self.horizons.items()}}

    @classmethod
    def from_json(cls, data: dict) -> Watermark:
        return cls(taken_at=datetime.fromisoformat(data["taken_at"]),
                   horizons={name: Horizon(xmin, xmax, tuple(xip), own)
                             for name, (xmin, xmax, xip, own) in data["horizons"].items()})


def watermark_now() -> Watermark:
    """What has committed so far. On PostgreSQL one snapshot serves every table; on SQLite the
    clock is read first, so everything committed before `taken_at` is below the rowids read."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_current_snapshot()::text, "
                           "pg_current_xact_id_if_assigned()::text, clock_timestamp()")
            text, own, taken_at = cursor.fetchone()
            xmin, xmax, xip = text.split(":")
            horizon = Horizon(int(xmin), int(xmax),
                              tuple(sorted(int(x) for x in xip.split(",") if x)),
                              int(own) if own is not None else None)
            return Watermark(horizons=dict.fromkeys(TABLES, horizon), taken_at=taken_at)
        taken_at = datetime.now(UTC)
        horizons = {}
        for name, model in TABLES.items():
            cursor.execute(f"SELECT coalesce(max(rowid), 0) FROM {model._meta.db_table}")
            (largest,) = cursor.fetchone()
            horizons[name] = Horizon(largest + 1, largest + 1)
        return Watermark(horizons=horizons, taken_at=taken_at)


def seen_by(rows: QuerySet, table: str, watermark: Watermark) -> QuerySet:
    """Only the rows of `rows` (a queryset over TABLES[table]) committed by the watermark."""
    return rows.alias(_order=_order_column(table)).filter(
        _seen(watermark.horizons[table]) | Q(_order__isnull=True))


def arrived(rows: QuerySet, table: str, *, after: Watermark, through: Watermark) -> QuerySet:
    """Only the rows committed by `through` but not by `after`: each row is in exactly one of
    a chain of consecutive intervals, which is what lets a reader add them up."""
    before, now = after.horizons[table], through.horizons[table]
    return rows.alias(_order=_order_column(table)).filter(
        _order__gte=before.xmin).filter(_seen(now)).exclude(_seen(before))


def _seen(horizon: Horizon) -> Q:
    committed = Q(_order__lt=horizon.xmax)
    if horizon.xip:
        committed &= ~Q(_order__in=horizon.xip)
    seen = Q(_order__lt=horizon.xmin) | committed
    if horizon.own is not None:
        seen |= Q(_order=horizon.own)
    return seen


def _order_column(table: str) -> RawSQL:
    quoted = connection.ops.quote_name(TABLES[table]._meta.db_table)
    column = "txid" if connection.vendor == "postgresql" else "rowid"
    return RawSQL(f"{quoted}.{column}", (), output_field=BigIntegerField())
