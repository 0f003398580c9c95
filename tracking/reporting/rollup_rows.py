"""The rows the daily rollups are computed from (analytics.rollups), chosen by a scope:
`OneDay` (one app's day, as committed by a watermark: what a rebuild reads, through the (app,
time) indexes) or `Arrivals` (every app's rows committed between two watermarks: what an
incremental pass reads, through the commit-order index; see tracking/changes.py). Times are UTC
and a "day" is a UTC calendar day.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Count, Max, Min
from django.db.models.functions import TruncDate

from tracking import changes
from tracking.changes import Watermark
from tracking.models import Click, ClickArchive, Event, Install


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
    fraud_status: str = "clean"
    # A blocked install is stored organic: the source and campaign whose claim was refused.
    refused_media_source: str | None = None
    refused_campaign_id: str | None = None


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
    # Whether the event was stored as an event of a blocked install, and its install's fraud
    # status: what analytics.counting reads to decide whether the revenue counts.
    is_blocked: bool = False
    install_fraud_status: str | None = None


@dataclass(frozen=True)
class Activity:
    """An install with at least one event on `day`, and the day it installed."""

    app_id: uuid.UUID
    install_id: uuid.UUID
    cohort: date
    day: date
    install_fraud_status: str = "clean"


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
        "campaign_id", "click_id", "attributed_touch_time", "fraud_status",
        "decision__fraud__refused__media_source", "decision__fraud__refused__campaign_id")]


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
                         "install__campaign_id", "revenue_currency", "revenue_amount",
                         "is_blocked", "install__fraud_status"))
    return [RevenueEventRow(app_id=r[0], day=r[1], install_id=r[2], installed_at=r[3],
                            is_organic=r[4], media_source=r[5], campaign_id=r[6],
                            currency=r[7] or "", amount=r[8], is_blocked=r[9],
                            install_fraud_status=r[10])
            for r in rows]


def active_installs_by_cohort_day(scope: OneDay, *, max_age_days: int,
                                  statuses_left_out: Sequence[str]) -> list[tuple[date, int]]:
    """(install day, installs with any event on the day) for installs of the `max_age_days`
    days before the day, leaving out installs of the fraud statuses given."""
    start, _end = day_bounds(scope.day)
    rows = (_rows(Event, "events", "occurred_at", scope)
            .filter(install__installed_at__gte=start - timedelta(days=max_age_days),
                    install__installed_at__lt=start)
            .exclude(install__fraud_status__in=statuses_left_out)
            .annotate(cohort=TruncDate("install__installed_at"))
            .values_list("cohort").annotate(active=Count("install_id", distinct=True))
            .order_by())
    return list(rows)


def activity_arrived(scope: Arrivals, *, max_age_days: int) -> list[Activity]:
    """Each (install, day) with an arrived event on a day 1 to `max_age_days` days after the
    install's own day, once."""
    rows = (_rows(Event, "events", "occurred_at", scope).filter(install_id__isnull=False)
            .annotate(day=TruncDate("occurred_at"), cohort=TruncDate("install__installed_at"))
            .values_list("app_id", "install_id", "cohort", "day", "install__fraud_status")
            .distinct().order_by())
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


