"""Read-only reporting over tracking's tables, in plain rows, for the analytics app (spec:
Analytics endpoints). Analytics reads clicks, installs and events only through these functions.

Rows are chosen by a scope: `OneDay` (one app's day, as committed by a watermark: what a
rebuild reads, through the (app, time) indexes) or `Arrivals` (every app's rows committed
between two watermarks: what an incremental pass reads, through the commit-order index; see
tracking/changes.py). Times are UTC and a "day" is a UTC calendar day. `bulk_load` is the one
write here: the demo seeder's fast path (PostgreSQL COPY, or bulk_create elsewhere).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db import connection, models, transaction
from django.db.models import CharField, Count, Func, Max, Min, TextField
from django.db.models.functions import Cast, TruncDate

from tracking import changes
from tracking.changes import Watermark
from tracking.models import Click, ClickArchive, Event, Install

EXPORT_CHUNK_ROWS = 5_000


@dataclass(frozen=True)
class InstallRow:
    app_id: uuid.UUID
    id: uuid.UUID
    device_id: str | None
    installed_at: datetime
    is_organic: bool
    media_source: str | None
    campaign_id: str | None
    click_id: uuid.UUID | None
    attributed_touch_time: datetime | None


@dataclass(frozen=True)
class ClickRow:
    id: uuid.UUID
    advertising_id: str | None
    media_source: str
    campaign_id: str
    clicked_at: datetime


@dataclass(frozen=True)
class ClickCount:
    app_id: uuid.UUID
    day: date
    media_source: str
    campaign_id: str
    clicks: int


@dataclass(frozen=True)
class RevenueEventRow:
    """A revenue event with its install's attribution (install_id None: linked to none)."""

    app_id: uuid.UUID
    day: date
    install_id: uuid.UUID | None
    installed_at: datetime | None
    is_organic: bool | None
    media_source: str | None
    campaign_id: str | None
    currency: str
    amount: Decimal


@dataclass(frozen=True)
class Activity:
    """An install with at least one event on `day`, and the day it installed."""

    app_id: uuid.UUID
    install_id: uuid.UUID
    cohort: date
    day: date


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return start, start + timedelta(days=1)


# --- Which rows: one day of one app, or every app's arrivals --------------------------------

@dataclass(frozen=True)
class OneDay:
    """One UTC day of one app, as committed by `seen` (what a rebuild of the day reads)."""

    app_id: uuid.UUID
    day: date
    seen: Watermark


@dataclass(frozen=True)
class Arrivals:
    """Every app's rows committed after one watermark and by the next (what a pass reads)."""

    after: Watermark
    through: Watermark


Scope = OneDay | Arrivals


def _rows(model, table: str, stamp: str, scope: Scope):
    if isinstance(scope, Arrivals):
        return changes.arrived(model.objects.all(), table, after=scope.after,
                               through=scope.through)
    start, end = day_bounds(scope.day)
    rows = model.objects.filter(app_id=scope.app_id, **{f"{stamp}__gte": start,
                                                         f"{stamp}__lt": end})
    return changes.seen_by(rows, table, scope.seen)


def arrival_counts(scope: Arrivals) -> dict[str, int]:
    """How many installs, archived clicks and events arrived, by table."""
    return {table: changes.arrived(model.objects.all(), table, after=scope.after,
                                   through=scope.through).count()
            for table, model in changes.TABLES.items()}


def days_arrived(scope: Arrivals) -> dict[str, dict[uuid.UUID, set[date]]]:
    """The days (UTC, by the row's own time) of each app that arrivals touched, by table."""
    found: dict[str, dict[uuid.UUID, set[date]]] = {}
    for table, stamp in (("installs", "installed_at"), ("clicks", "clicked_at"),
                         ("events", "occurred_at")):
        found[table] = {}
        rows = (_rows(changes.TABLES[table], table, stamp, scope)
                .annotate(day=TruncDate(stamp)).values_list("app_id", "day").distinct()
                .order_by())
        for app_id, day in rows:
            found[table].setdefault(app_id, set()).add(day)
    return found


def app_activity_span(*, app_id: uuid.UUID) -> tuple[date, date] | None:
    """First and last UTC day with any install, archived click or event of the app."""
    ends = []
    for model, stamp in ((Install, "installed_at"), (ClickArchive, "clicked_at"),
                         (Event, "occurred_at")):
        span = model.objects.filter(app_id=app_id).aggregate(first=Min(stamp), last=Max(stamp))
        if span["first"] is not None:
            ends.extend([span["first"], span["last"]])
    if not ends:
        return None
    return min(ends).astimezone(UTC).date(), max(ends).astimezone(UTC).date()


# --- Rows for the rollups ---------------------------------------------------------------------

def installs(scope: Scope) -> list[InstallRow]:
    rows = _rows(Install, "installs", "installed_at", scope)
    return [InstallRow(*values) for values in rows.values_list(
        "app_id", "id", "device_id", "installed_at", "is_organic", "media_source",
        "campaign_id", "click_id", "attributed_touch_time")]


def device_clicks_for_installs_on_day(*, app_id: uuid.UUID, day: date,
                                      window: timedelta) -> list[ClickRow]:
    """Archived clicks, from `window` before the day to its end, whose advertising id is the
    device id of an install of that day. The caller narrows each install to its own window."""
    start, end = day_bounds(day)
    devices = (Install.objects.filter(app_id=app_id, installed_at__gte=start,
                                      installed_at__lt=end, device_id__isnull=False)
               .values("device_id"))
    rows = ClickArchive.objects.filter(app_id=app_id, clicked_at__gte=start - window,
                                       clicked_at__lt=end, advertising_id__in=devices)
    return _click_rows(rows)


def recent_device_clicks(*, app_id: uuid.UUID, device_ids: Iterable[str], since: datetime,
                         until: datetime) -> list[ClickRow]:
    """Clicks of these devices in [since, until], from the hot store and its device index (the
    archive has the same rows, but no index to find them by device). The hot store keeps the
    attribution window and an hour more, so `since` must not be older than that."""
    ids = sorted(set(device_ids))
    found: list[ClickRow] = []
    for offset in range(0, len(ids), 1_000):
        found.extend(_click_rows(Click.objects.filter(
            app_id=app_id, advertising_id__in=ids[offset:offset + 1_000],
            clicked_at__gte=since, clicked_at__lte=until)))
    return found


def clicks_by_id(*, app_id: uuid.UUID, click_ids: Iterable[uuid.UUID]) -> list[ClickRow]:
    ids = list(click_ids)
    found: list[ClickRow] = []
    for offset in range(0, len(ids), 1_000):
        found.extend(_click_rows(ClickArchive.objects.filter(
            app_id=app_id, id__in=ids[offset:offset + 1_000])))
    return found


def _click_rows(rows) -> list[ClickRow]:
    return [ClickRow(*values) for values in rows.values_list(
        "id", "advertising_id", "media_source", "campaign_id", "clicked_at")]


def click_counts(scope: Scope) -> list[ClickCount]:
    """Archived clicks counted per app, day, media source and campaign."""
    rows = (_rows(ClickArchive, "clicks", "clicked_at", scope)
            .annotate(day=TruncDate("clicked_at"))
            .values_list("app_id", "day", "media_source", "campaign_id")
            .annotate(clicks=Count("id")).order_by())
    return [ClickCount(*values) for values in rows]


def revenue_events(scope: Scope) -> list[RevenueEventRow]:
    """Revenue events (by occurred_at day), one row each, with their install's attribution.
    An amount without a currency comes back under currency "" rather than being left out."""
    rows = (_rows(Event, "events", "occurred_at", scope)
            .filter(revenue_amount__isnull=False)
            .annotate(day=TruncDate("occurred_at"))
            .values_list("app_id", "day", "install_id", "install__installed_at",
                         "install__is_organic", "install__media_source",
                         "install__campaign_id", "revenue_currency", "revenue_amount"))
    return [RevenueEventRow(app_id=r[0], day=r[1], install_id=r[2], installed_at=r[3],
                            is_organic=r[4], media_source=r[5], campaign_id=r[6],
                            currency=r[7] or "", amount=r[8])
            for r in rows.iterator(chunk_size=EXPORT_CHUNK_ROWS)]


def active_installs_by_cohort_day(scope: OneDay, *, max_age_days: int) -> list[tuple[date, int]]:
    """(install day, installs with any event on the day) for installs of the `max_age_days`
    days before the day."""
    start, _end = day_bounds(scope.day)
    rows = (_rows(Event, "events", "occurred_at", scope)
            .filter(install__installed_at__gte=start - timedelta(days=max_age_days),
                    install__installed_at__lt=start)
            .annotate(cohort=TruncDate("install__installed_at"))
            .values_list("cohort").annotate(active=Count("install_id", distinct=True))
            .order_by())
    return list(rows)


def activity_arrived(scope: Arrivals, *, max_age_days: int) -> list[Activity]:
    """Each (install, day) with an arrived event on a day 1 to `max_age_days` days after the
    install's own day, once."""
    rows = (_rows(Event, "events", "occurred_at", scope).filter(install_id__isnull=False)
            .annotate(day=TruncDate("occurred_at"), cohort=TruncDate("install__installed_at"))
            .values_list("app_id", "install_id", "cohort", "day").distinct().order_by())
    return [Activity(*row) for row in rows
            if 1 <= (row[3] - row[2]).days <= max_age_days]


def active_before(activity: Sequence[Activity], *, seen: Watermark) -> set[tuple[uuid.UUID, date]]:
    """Which of these (install, day) already had an event committed by `seen`."""
    wanted = {(a.install_id, a.day) for a in activity}
    found: set[tuple[uuid.UUID, date]] = set()
    by_install: dict[uuid.UUID, list[date]] = {}
    for install_id, day in wanted:
        by_install.setdefault(install_id, []).append(day)
    install_ids = sorted(by_install)
    for offset in range(0, len(install_ids), 1_000):
        chunk = install_ids[offset:offset + 1_000]
        days = [day for install_id in chunk for day in by_install[install_id]]
        rows = changes.seen_by(Event.objects.filter(
            install_id__in=chunk, occurred_at__gte=day_bounds(min(days))[0],
            occurred_at__lt=day_bounds(max(days))[1]), "events", seen)
        found.update(pair for pair in rows.annotate(day=TruncDate("occurred_at"))
                     .values_list("install_id", "day").distinct().order_by()
                     if pair in wanted)
    return found


# --- Raw rows for CSV export ------------------------------------------------------------------

class IsoUtc(Func):
    """A timestamp as ISO 8601 UTC text with milliseconds and a Z, formatted by the database:
    parsing millions of timestamps into datetimes only to print them again is most of an
    export's time."""

    output_field = CharField()
    template = ("to_char(%(expressions)s AT TIME ZONE 'UTC', "
                "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')")

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection,
                           template="strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', %(expressions)s)",
                           **extra)


# Times come back as ISO 8601 text (see IsoUtc), in the order of these names.
INSTALL_EXPORT_FIELDS = (
    "id", "installed_at", "device_id", "platform", "match_type", "confidence", "is_organic",
    "media_source", "campaign_id", "adset", "ad", "click_id", "attributed_touch_time",
    "sdk_version", "os_version", "device_model")
EVENT_EXPORT_FIELDS = (
    "id", "event_id", "occurred_at", "received_at", "event_name", "device_id", "install_id",
    "session_id", "revenue_amount", "revenue_currency", "properties")
REVENUE_EXPORT_FIELDS = (
    "id", "occurred_at", "event_name", "device_id", "install_id", "install__is_organic",
    "install__media_source", "install__campaign_id", "revenue_amount", "revenue_currency")
_AS_TEXT = {
    "installed_at": IsoUtc("installed_at"),
    "attributed_touch_time": IsoUtc("attributed_touch_time"),
    "occurred_at": IsoUtc("occurred_at"),
    "received_at": IsoUtc("received_at"),
    # The JSON as stored, as text: decoding it only to encode it again would halve the speed.
    "properties": Cast("properties", TextField()),
}


def _text_values(rows, fields: Sequence[str]):
    renamed = {f"{name}_text": _AS_TEXT[name] for name in fields if name in _AS_TEXT}
    return rows.annotate(**renamed).values_list(
        *(f"{name}_text" if name in _AS_TEXT else name for name in fields))


def installs_for_export(*, app_id: uuid.UUID, start: date, end: date) -> Iterator[tuple]:
    """Installs of days start..end inclusive, oldest first, as tuples of INSTALL_EXPORT_FIELDS."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    rows = (Install.objects.filter(app_id=app_id, installed_at__gte=since, installed_at__lt=until)
            .order_by("installed_at", "id"))
    return _stream(_text_values(rows, INSTALL_EXPORT_FIELDS))


def events_for_export(*, app_id: uuid.UUID, start: date, end: date,
                      revenue_only: bool = False) -> Iterator[tuple]:
    """Events of days start..end (by occurred_at), oldest first, as tuples of
    EVENT_EXPORT_FIELDS, or of REVENUE_EXPORT_FIELDS for revenue events only."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    rows = (Event.objects.filter(app_id=app_id, occurred_at__gte=since, occurred_at__lt=until)
            .order_by("occurred_at", "id"))
    if revenue_only:
        # About one event in twenty-five has revenue, and each needs its install: a plan for
        # the whole result (one scan, a hash join, a sort) beats the default fast-start plan
        # (an install lookup per row) by half, for a first byte a second or two later.
        return _stream(_text_values(rows.filter(revenue_amount__isnull=False),
                                    REVENUE_EXPORT_FIELDS), whole_result_plan=True)
    return _stream(_text_values(rows, EVENT_EXPORT_FIELDS))


def _stream(rows, *, whole_result_plan: bool = False) -> Iterator[tuple]:
    # Inside a transaction PostgreSQL streams a server-side cursor; outside one Django declares
    # it WITH HOLD, which makes the server materialise the whole result before the first row.
    with transaction.atomic():
        if whole_result_plan and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL cursor_tuple_fraction = 1.0")
        yield from rows.iterator(chunk_size=EXPORT_CHUNK_ROWS)


# --- Demo data --------------------------------------------------------------------------------

_LOADABLE = {"installs": Install, "clicks": Click, "click_archive": ClickArchive,
             "events": Event}


def bulk_load(*, table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Append rows (tuples in `columns` order) to one of tracking's tables, bypassing the
    tracking services: for the demo seeder only. Columns left out get their field's default.
    PostgreSQL loads through COPY; other databases through bulk_create."""
    model = _LOADABLE[table]
    fields = {f.attname: f for f in model._meta.concrete_fields}
    unknown = [c for c in columns if c not in fields]
    if unknown:
        raise ValueError(f"{table} has no column(s) {', '.join(unknown)}")
    pk = model._meta.pk
    if pk.attname not in columns and not isinstance(pk, models.AutoField):
        raise ValueError(f"{table} rows need their primary key ({pk.attname})")
    missing = [f for name, f in fields.items()
               if name not in columns and not (f is pk and isinstance(pk, models.AutoField))]
    defaults = tuple(None if f.null and not f.has_default() else f.get_default()
                     for f in missing)
    json_at = [i for i, c in enumerate(columns) if isinstance(fields[c], models.JSONField)]
    names = [*columns, *(f.attname for f in missing)]
    if connection.vendor == "postgresql":
        return _copy(model, names, rows, defaults, json_at, missing)
    count = 0
    batch: list = []
    for row in rows:
        batch.append(model(**dict(zip(names, (*row, *defaults), strict=True))))
        if len(batch) == 2_000:
            model.objects.bulk_create(batch)
            count += len(batch)
            batch = []
    model.objects.bulk_create(batch)
    return count + len(batch)


def _copy(model, names, rows, defaults, json_at, missing) -> int:
    default_json = {i for i, f in enumerate(missing) if isinstance(f, models.JSONField)}
    defaults = tuple(json.dumps(v) if i in default_json else v for i, v in enumerate(defaults))
    column_of = {f.attname: f.column for f in model._meta.concrete_fields}
    columns = ", ".join(connection.ops.quote_name(column_of[name]) for name in names)
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
    ) as copy:
        for row in rows:
            if json_at:
                row = list(row)
                for i in json_at:
                    row[i] = json.dumps(row[i])
            copy.write_row((*row, *defaults))
            count += 1
    return count


def analyze_tables() -> None:
    """Refresh the planner's statistics after a bulk load (PostgreSQL only)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in _LOADABLE.values():
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
