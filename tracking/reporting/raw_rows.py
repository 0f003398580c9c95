"""Raw rows for the owner's bucket (raw_export; docs/export.md): installs, archived clicks and
events committed between two watermarks (tracking/changes.py), and re-engagements stamped in a
time window, each streamed in the order of the time the service received it.

The commit-ordered tables are read by watermark, so consecutive runs see every row exactly once
whatever the rows' own times say. Re-engagements have no commit-order column: they are read by
`reengaged_at`, stamped as the row is written (see raw_export/layout.py, `stamp_window`).
Times come as integer microseconds since the epoch (UTC). Columns are read as stored: an erased
identity (tracking/erasure.py) or an address masked after the app's IP limit
(tracking/retention.py) comes out blanked or masked.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

from django.core.exceptions import FieldDoesNotExist
from django.db import connections, transaction
from django.db.models import BigIntegerField, CharField, DateTimeField, F, Func, QuerySet
from django.db.models.functions import Cast

from tracking import changes
from tracking.changes import Watermark
from tracking.models import ClickArchive, Event, Install, Reengagement
from tracking.trail_words import trail_summary

RAW_CHUNK_ROWS = 10_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_INSTALL_READ = (
    "app_id", "id", "installed_at", "platform", "match_type", "is_organic", "confidence",
    "media_source", "campaign_id", "adset", "ad", "click_id", "attributed_touch_time",
    "decision", "device_id", "customer_user_id", "ip", "user_agent", "os_version",
    "device_model", "language", "sdk_version", "att_status", "fraud_status", "fraud_reasons")
# What `installs` yields: the stored trail becomes its sentence and its count of losing clicks.
_TRAIL_AT = _INSTALL_READ.index("decision")
INSTALL_FIELDS = (*_INSTALL_READ[:_TRAIL_AT], "trail_summary", "losing_clicks",
                  *_INSTALL_READ[_TRAIL_AT + 1:])
EVENT_FIELDS = (
    "app_id", "id", "event_id", "event_name", "occurred_at", "received_at", "properties",
    "revenue_amount", "revenue_currency", "session_id", "device_id", "install_id",
    "install__installed_at", "install__platform", "install__match_type",
    "install__media_source", "install__campaign_id", "install__adset", "install__ad",
    "is_blocked", "install__fraud_status", "install__fraud_reasons")
CLICK_FIELDS = (
    "app_id", "id", "clicked_at", "media_source", "campaign_id", "adset", "ad",
    "advertising_id", "ip", "user_agent", "os_family", "os_version", "device_model", "link_id")
REENGAGEMENT_FIELDS = (
    "app_id", "id", "install_id", "reengaged_at", "clicked_at", "click_id", "media_source",
    "campaign_id")


class HostText(Func):
    """An address as text without its prefix length (PostgreSQL's inet prints '/32' else)."""

    function = "host"
    output_field = CharField()

    def as_sqlite(self, compiler, connection, **extra):
        return self.get_source_expressions()[0].as_sql(compiler, connection)


class EpochMicros(Func):
    """A timestamp as integer microseconds since 1970-01-01 UTC, computed by the database:
    an integer costs a tenth of a datetime to load and to hand to a columnar writer."""

    template = "(extract(epoch from %(expressions)s) * 1000000)::bigint"
    output_field = BigIntegerField()

    def as_sqlite(self, compiler, connection, **extra):
        # Stored as 'YYYY-MM-DD HH:MM:SS[.ffffff]' UTC text: whole seconds from strftime, the
        # fraction from the text itself (julianday's double would round microseconds).
        sql, params = self.get_source_expressions()[0].as_sql(compiler, connection)
        return (f"(CAST(strftime('%%s', {sql}) AS INTEGER) * 1000000 + "
                f"CAST(substr({sql} || '.000000', 21, 6) AS INTEGER))"), params * 2


class UuidText(Func):
    """A UUID as its usual 36-character text, formatted by the database: making millions of
    UUID objects only to print them again would cost more than the rest of a row. (SQLite
    keeps UUIDs as 32 hex digits.)"""

    template = "%(expressions)s::text"
    output_field = CharField()

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = self.get_source_expressions()[0].as_sql(compiler, connection)
        parts = [f"substr({sql}, {start}, {length})"
                 for start, length in ((1, 8), (9, 4), (13, 4), (17, 4), (21, 12))]
        return " || '-' || ".join(parts), params * 5


def _values(rows: QuerySet, fields: Sequence[str], *, uuids: Sequence[str] = (),
            addresses: Sequence[str] = (), jsons: Sequence[str] = ()) -> QuerySet:
    """values_list in `fields` order: times as epoch microseconds (EpochMicros), UUIDs,
    addresses and `jsons` as text."""
    model = rows.model
    renamed = {}
    for name in fields:
        key = f"raw_{name}"
        if _is_time(model, name):
            renamed[key] = EpochMicros(F(name))
        elif name in uuids:
            renamed[key] = UuidText(F(name))
        elif name in addresses:
            renamed[key] = HostText(F(name))
        elif name in jsons:
            renamed[key] = Cast(name, CharField())
    return rows.annotate(**renamed).values_list(
        *(f"raw_{name}" if f"raw_{name}" in renamed else name for name in fields))


def _is_time(model, name: str) -> bool:
    *path, last = name.split("__")
    for step in path:
        model = model._meta.get_field(step).related_model
    try:
        return isinstance(model._meta.get_field(last), DateTimeField)
    except FieldDoesNotExist:
        return False


def _committed(model, table: str, *, app_ids: Sequence[uuid.UUID], after: Watermark | None,
               through: Watermark) -> QuerySet:
    rows = model.objects.filter(app_id__in=list(app_ids))
    if after is None:
        return changes.seen_by(rows, table, through)
    return changes.arrived(rows, table, after=after, through=through)


def installs(*, app_ids: Sequence[uuid.UUID], after: Watermark | None, through: Watermark,
             fraud_status: str | None = None) -> Iterator[tuple]:
    """Installs committed after `after` (None: from the start) and by `through`, as tuples in
    INSTALL_FIELDS order, oldest received first; only those of `fraud_status` when given."""
    rows = _committed(Install, "installs", app_ids=app_ids, after=after, through=through)
    if fraud_status is not None:
        rows = rows.filter(fraud_status=fraud_status)
    for row in _stream(_values(rows.order_by("installed_at", "id"), _INSTALL_READ,
                               uuids=("app_id", "id", "click_id"), addresses=("ip",),
                               jsons=("fraud_reasons",))):
        summary = trail_summary(row[_TRAIL_AT], installed_at=EPOCH + timedelta(
            microseconds=row[2]))
        yield (*row[:_TRAIL_AT], *summary, *row[_TRAIL_AT + 1:])


def events(*, app_ids: Sequence[uuid.UUID], after: Watermark | None, through: Watermark
           ) -> Iterator[tuple]:
    """Events (with their install's attribution) committed after `after` and by `through`, as
    tuples in EVENT_FIELDS order (properties as JSON text), oldest received first."""
    rows = _committed(Event, "events", app_ids=app_ids, after=after, through=through)
    rows = rows.annotate(raw_properties=Cast("properties", CharField()))
    fields = tuple("raw_properties" if f == "properties" else f for f in EVENT_FIELDS)
    return _stream(_values(rows.order_by("received_at", "id"), fields,
                           uuids=("app_id", "session_id", "install_id"),
                           jsons=("install__fraud_reasons",)))


def clicks(*, app_ids: Sequence[uuid.UUID], after: Watermark | None, through: Watermark
           ) -> Iterator[tuple]:
    """Archived clicks committed after `after` and by `through`, in CLICK_FIELDS order."""
    rows = _committed(ClickArchive, "clicks", app_ids=app_ids, after=after, through=through)
    return _stream(_values(rows.order_by("clicked_at", "id"), CLICK_FIELDS,
                           uuids=("app_id", "id", "link_id"), addresses=("ip",)))


def reengagements(*, app_ids: Sequence[uuid.UUID], since: datetime | None, until: datetime
                  ) -> Iterator[tuple]:
    """Re-engagements recorded in [since, until) (since None: from the start), in
    REENGAGEMENT_FIELDS order."""
    rows = Reengagement.objects.filter(app_id__in=list(app_ids), reengaged_at__lt=until)
    if since is not None:
        rows = rows.filter(reengaged_at__gte=since)
    return _stream(_values(rows.order_by("reengaged_at", "id"), REENGAGEMENT_FIELDS,
                           uuids=("app_id", "id", "install_id", "click_id")))


def _stream(rows: QuerySet) -> Iterator[tuple]:
    # Inside a transaction PostgreSQL streams a server-side cursor; outside one Django declares
    # it WITH HOLD, which materialises the whole result first (as export_rows says).
    with transaction.atomic(using=rows.db):
        if connections[rows.db].vendor == "postgresql":
            with connections[rows.db].cursor() as cursor:
                # The whole result is read: a plan for all of it (one scan and a sort), not the
                # cursor's default plan for the first rows (an index in time order, which on a
                # table not stored in time order reads the heap at random).
                cursor.execute("SET LOCAL cursor_tuple_fraction = 1.0")
        yield from rows.iterator(chunk_size=RAW_CHUNK_ROWS)
