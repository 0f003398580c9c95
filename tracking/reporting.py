"""Read-only reporting over tracking's tables, in plain rows, for the analytics app (spec:
Analytics endpoints). Analytics reads clicks, installs and events only through these functions.

Every query is bounded by an app and an index: (app, installed_at) for installs, (app,
clicked_at) for the click archive, (app, occurred_at) and the primary key for events. Times are
UTC and a "day" is a UTC calendar day. Installs and clicks are stamped by the server when they
arrive, so their own time is also their arrival time; events carry the client's `occurred_at`,
so new events are found by id instead. `bulk_load` is the one write here: the demo seeder's
fast path (PostgreSQL COPY, or bulk_create elsewhere).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db import connection, models, transaction
from django.db.models import CharField, Count, Func, Max, Min, Q, Sum, TextField
from django.db.models.functions import Cast, TruncDate

from tracking.models import Click, ClickArchive, Event, Install

EXPORT_CHUNK_ROWS = 5_000


@dataclass(frozen=True)
class InstallRow:
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
class InstallRevenueRow:
    """Revenue events of one day for one install (install_id None: events linked to none)."""

    install_id: uuid.UUID | None
    installed_at: datetime | None
    is_organic: bool | None
    media_source: str | None
    campaign_id: str | None
    currency: str
    revenue: Decimal
    refunds: Decimal
    events: int


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return start, start + timedelta(days=1)


# --- What changed -----------------------------------------------------------------------------

def install_days_recorded(*, after: datetime | None, through: datetime) -> dict[uuid.UUID, set]:
    """The install days of each app that got installs stamped in (after, through]."""
    return _days_recorded(Install, "installed_at", after=after, through=through)


def click_days_recorded(*, after: datetime | None, through: datetime) -> dict[uuid.UUID, set]:
    """The click days of each app that got archived clicks stamped in (after, through]."""
    return _days_recorded(ClickArchive, "clicked_at", after=after, through=through)


def _days_recorded(model, stamp: str, *, after, through) -> dict[uuid.UUID, set]:
    found: dict[uuid.UUID, set] = {}
    for app_id in _app_ids(model):
        rows = model.objects.filter(app_id=app_id, **{f"{stamp}__lte": through})
        if after is not None:
            rows = rows.filter(**{f"{stamp}__gt": after})
        days = set(rows.annotate(day=TruncDate(stamp)).values_list("day", flat=True)
                   .distinct().order_by())
        if days:
            found[app_id] = days
    return found


def _app_ids(model) -> Iterator[uuid.UUID]:
    # A loose index scan: one probe of the (app, time) index per app, instead of a DISTINCT
    # over the whole table.
    last = None
    while True:
        rows = model.objects.order_by("app_id")
        if last is not None:
            rows = rows.filter(app_id__gt=last)
        last = rows.values_list("app_id", flat=True).first()
        if last is None:
            return
        yield last


def event_id_ceiling(*, after_id: int, received_through: datetime) -> int:
    """The largest id such that every event in (after_id, id] was received by the deadline.

    Ids are handed out before commit, so a reader can see id n+1 before id n commits. Stopping
    below the first event received after the deadline, and keeping the deadline a safety margin
    behind the clock, leaves out any event whose transaction could still be open.
    """
    too_new = (Event.objects.filter(id__gt=after_id, received_at__gt=received_through)
               .aggregate(first=Min("id"))["first"])
    if too_new is not None:
        return too_new - 1
    return Event.objects.filter(id__gt=after_id).aggregate(last=Max("id"))["last"] or after_id


def event_days_recorded(*, after_id: int, through_id: int) -> dict[uuid.UUID, set]:
    """The event days (by occurred_at) of each app among events with ids in (after, through]."""
    found: dict[uuid.UUID, set] = {}
    rows = (Event.objects.filter(id__gt=after_id, id__lte=through_id)
            .annotate(day=TruncDate("occurred_at")).values_list("app_id", "day")
            .distinct().order_by())
    for app_id, day in rows:
        found.setdefault(app_id, set()).add(day)
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


# --- One day of one app -----------------------------------------------------------------------

def installs_on_day(*, app_id: uuid.UUID, day: date) -> list[InstallRow]:
    start, end = day_bounds(day)
    rows = Install.objects.filter(app_id=app_id, installed_at__gte=start, installed_at__lt=end)
    return [InstallRow(*values) for values in rows.values_list(
        "id", "device_id", "installed_at", "is_organic", "media_source", "campaign_id",
        "click_id", "attributed_touch_time")]


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


def click_counts_on_day(*, app_id: uuid.UUID, day: date) -> list[tuple[str, str, int]]:
    """(media_source, campaign_id, clicks) of the archived clicks of the day."""
    start, end = day_bounds(day)
    return list(ClickArchive.objects.filter(app_id=app_id, clicked_at__gte=start,
                                            clicked_at__lt=end)
                .values_list("media_source", "campaign_id").annotate(clicks=Count("id"))
                .order_by())


def revenue_by_install_on_day(*, app_id: uuid.UUID, day: date) -> list[InstallRevenueRow]:
    """Revenue events of the day (by occurred_at) summed per install and currency. An amount
    without a currency comes back under currency "" rather than being left out."""
    start, end = day_bounds(day)
    rows = (Event.objects.filter(app_id=app_id, occurred_at__gte=start, occurred_at__lt=end,
                                 revenue_amount__isnull=False)
            .values_list("install_id", "install__installed_at", "install__is_organic",
                         "install__media_source", "install__campaign_id", "revenue_currency")
            .annotate(revenue=Sum("revenue_amount"),
                      refunds=Sum("revenue_amount", filter=Q(revenue_amount__lt=0)),
                      events=Count("id"))
            .order_by())
    return [InstallRevenueRow(install_id=r[0], installed_at=r[1], is_organic=r[2],
                              media_source=r[3], campaign_id=r[4], currency=r[5] or "",
                              revenue=r[6], refunds=r[7] or Decimal(0), events=r[8])
            for r in rows]


def active_installs_by_cohort_day(*, app_id: uuid.UUID, day: date,
                                  max_age_days: int) -> list[tuple[date, int]]:
    """(install day, installs with any event on `day`) for installs of the `max_age_days`
    days before `day`."""
    start, end = day_bounds(day)
    rows = (Event.objects.filter(app_id=app_id, occurred_at__gte=start, occurred_at__lt=end,
                                 install__installed_at__gte=start - timedelta(days=max_age_days),
                                 install__installed_at__lt=start)
            .annotate(cohort=TruncDate("install__installed_at"))
            .values_list("cohort").annotate(active=Count("install_id", distinct=True))
            .order_by())
    return list(rows)


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
