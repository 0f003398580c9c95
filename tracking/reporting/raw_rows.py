"""Raw rows for the owner's bucket (raw_export; docs/export.md): installs, archived clicks and
events committed between two watermarks (tracking/changes.py), and re-engagements stamped in a
time window, each streamed in the order of the time the service received it.

The commit-ordered tables are read by watermark, so consecutive runs see every row exactly once
whatever the rows' own times say. Re-engagements have no commit-order column: they are read by
`reengaged_at`, stamped as the row is written (see raw_export/layout.py, `stamp_window`).
Each reader yields named rows (`InstallRow`, `EventRow`, `ClickRow`, `ReengagementRow`), which
raw_export/topics.py shapes into its columns by name. Times come as integer microseconds since
the epoch (UTC), UUIDs and addresses as text. Columns are read as stored: an erased
identity (tracking/erasure.py) or an address masked after the app's IP limit
(tracking/retention.py) comes out blanked or masked.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import NamedTuple

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

class InstallRow(NamedTuple):
    """An install as its raw file reads it: the stored trail as its sentence and its count of
    losing clicks."""

    app_id: str
    id: str
    installed_at: int
    platform: str
    match_type: str
    is_organic: bool
    confidence: float
    media_source: str
    campaign_id: str
    adset: str
    ad: str
    click_id: str | None
    attributed_touch_time: int | None
    trail_summary: str
    losing_clicks: int
    device_id: str
    customer_user_id: str
    ip: str | None
    user_agent: str
    os_version: str
    device_model: str
    language: str
    sdk_version: str
    att_status: str
    fraud_status: str
    fraud_reasons: str  # JSON text


class EventRow(NamedTuple):
    """An event (properties as JSON text) with its install's attribution (`install_*`: None
    when no install was found)."""

    app_id: str
    id: int
    event_id: str
    event_name: str
    occurred_at: int
    received_at: int
    properties: str
    revenue_amount: Decimal | None
    revenue_currency: str
    session_id: str | None
    device_id: str
    install_id: str | None
    install_installed_at: int | None
    install_platform: str | None
    install_match_type: str | None
    install_media_source: str | None
    install_campaign_id: str | None
    install_adset: str | None
    install_ad: str | None
    is_blocked: bool
    install_fraud_status: str | None
    install_fraud_reasons: str | None


class ClickRow(NamedTuple):
    app_id: str
    id: str
    clicked_at: int
    media_source: str
    campaign_id: str
    adset: str
    ad: str
    advertising_id: str
    ip: str | None
    user_agent: str
    os_family: str
    os_version: str
    device_model: str
    link_id: str | None


class ReengagementRow(NamedTuple):
    app_id: str
    id: str
    install_id: str
    reengaged_at: int
    clicked_at: int | None
    click_id: str | None
    media_source: str
    campaign_id: str


# What each reader asks the database for, in its row's order (`install__x` for `install_x`).
_INSTALL_READ = tuple("decision" if name == "trail_summary" else name
                      for name in InstallRow._fields if name != "losing_clicks")
_EVENT_READ = tuple(name.replace("install_", "install__", 1)
                    if name.startswith("install_") and name != "install_id" else name
                    for name in EventRow._fields)
_CLICK_READ = ClickRow._fields
_REENGAGEMENT_READ = ReengagementRow._fields


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
             fraud_status: str | None = None) -> Iterator[InstallRow]:
    """Installs committed after `after` (None: from the start) and by `through`, oldest
    received first; only those of `fraud_status` when given."""
    rows = _committed(Install, "installs", app_ids=app_ids, after=after, through=through)
    if fraud_status is not None:
        rows = rows.filter(fraud_status=fraud_status)
    for row in _stream(_values(rows.order_by("installed_at", "id"), _INSTALL_READ,
                               uuids=("app_id", "id", "click_id"), addresses=("ip",),
                               jsons=("fraud_reasons",))):
        (app_id, id_, installed_at, platform, match_type, is_organic, confidence, media_source,
         campaign_id, adset, ad, click_id, attributed_touch_time, decision, device_id,
         customer_user_id, ip, user_agent, os_version, device_model, language, sdk_version,
         att_status, fraud_status, fraud_reasons) = row
        summary, losing_clicks = trail_summary(
            decision, installed_at=EPOCH + timedelta(microseconds=installed_at))
        yield InstallRow(
            app_id, id_, installed_at, platform, match_type, is_organic, confidence,
            media_source, campaign_id, adset, ad, click_id, attributed_touch_time, summary,
            losing_clicks, device_id, customer_user_id, ip, user_agent, os_version,
            device_model, language, sdk_version, att_status, fraud_status, fraud_reasons)


def events(*, app_ids: Sequence[uuid.UUID], after: Watermark | None, through: Watermark
           ) -> Iterator[EventRow]:
    """Events (with their install's attribution) committed after `after` and by `through`,
    oldest received first."""
    rows = _committed(Event, "events", app_ids=app_ids, after=after, through=through)
    return map(EventRow._make, _stream(_values(
        rows.order_by("received_at", "id"), _EVENT_READ,
        uuids=("app_id", "session_id", "install_id"),
        jsons=("properties", "install__fraud_reasons"))))


def clicks(*, app_ids: Sequence[uuid.UUID], after: Watermark | None, through: Watermark
           ) -> Iterator[ClickRow]:
    """Archived clicks committed after `after` and by `through`, oldest received first."""
    rows = _committed(ClickArchive, "clicks", app_ids=app_ids, after=after, through=through)
    return map(ClickRow._make, _stream(_values(
        rows.order_by("clicked_at", "id"), _CLICK_READ, uuids=("app_id", "id", "link_id"),
        addresses=("ip",))))


def reengagements(*, app_ids: Sequence[uuid.UUID], since: datetime | None, until: datetime
                  ) -> Iterator[ReengagementRow]:
    """Re-engagements recorded in [since, until) (since None: from the start)."""
    rows = Reengagement.objects.filter(app_id__in=list(app_ids), reengaged_at__lt=until)
    if since is not None:
        rows = rows.filter(reengaged_at__gte=since)
    return map(ReengagementRow._make, _stream(_values(
        rows.order_by("reengaged_at", "id"), _REENGAGEMENT_READ,
        uuids=("app_id", "id", "install_id", "click_id"))))


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
