"""Rebuilding one (app, kind, day) whole, and the queue of days waiting for it.

A rebuild reads the day's rows as committed by the current watermark and replaces the day's
rollup rows with their figures; rows that commit later are added by the next passes, so a
rebuild and the passes never count a row twice or miss one. Rebuilds repair (`analytics_refresh
--app`), start the rollups on a new database, and take over from a pass when a backlog is
larger than adding row by row is worth (analytics.rollups.arrivals).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from analytics import counting
from analytics.models import RollupDirtyDay, RollupKind
from analytics.rollups.arrivals import touchpoint_weights
from analytics.rollups.figures import (
    RETENTION_MAX_AGE,
    TOUCHPOINT_WINDOW,
    click_figures,
    install_figures,
    missing_own_clicks,
    revenue_figures,
    touches_for,
)
from analytics.rollups.store import replace_click_day, replace_event_day, replace_install_day
from tracking.changes import Watermark
from tracking.reporting import rollup_rows


def rebuild_install_day(*, app_id: uuid.UUID, day: date, seen: Watermark) -> None:
    installs = rollup_rows.installs(rollup_rows.OneDay(app_id=app_id, day=day, seen=seen))
    paid = [install for install in installs if not install.is_organic]
    device_clicks = (rollup_rows.device_clicks_for_installs_on_day(
        app_id=app_id, day=day, window=TOUCHPOINT_WINDOW)
        if any(install.device_id for install in paid) else [])
    own = rollup_rows.clicks_by_id(app_id=app_id,
                                 click_ids=missing_own_clicks(paid, device_clicks))
    touches = touches_for(paid, device_clicks=device_clicks,
                          own_clicks={click.id: click for click in own})
    half_life = timedelta(hours=settings.ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS)
    replace_install_day(app_id=app_id, day=day, figures=install_figures(
        installs, touches=touches, half_life=half_life))


def rebuild_click_day(*, app_id: uuid.UUID, day: date, seen: Watermark) -> None:
    counts = rollup_rows.click_counts(rollup_rows.OneDay(app_id=app_id, day=day, seen=seen))
    replace_click_day(app_id=app_id, day=day, figures=click_figures(counts))


def rebuild_event_day(*, app_id: uuid.UUID, day: date, seen: Watermark) -> None:
    scope = rollup_rows.OneDay(app_id=app_id, day=day, seen=seen)
    rows = rollup_rows.revenue_events(scope)
    paid = {row.install_id for row in rows if row.install_id and not row.is_organic}
    revenue = revenue_figures(rows, weights=touchpoint_weights(paid))
    retention = {(app_id, day, cohort, (day - cohort).days): active
                 for cohort, active in rollup_rows.active_installs_by_cohort_day(
                     scope, max_age_days=RETENTION_MAX_AGE,
                     statuses_left_out=counting.NOT_COUNTED)}
    replace_event_day(app_id=app_id, day=day, figures=revenue, retention=retention)


REBUILDERS = {
    RollupKind.INSTALLS: rebuild_install_day,
    RollupKind.CLICKS: rebuild_click_day,
    RollupKind.EVENTS: rebuild_event_day,
}


def queue(*, app_id: uuid.UUID, kind: int, days: Iterable[date],
          stale_since: datetime | None) -> int:
    """Queue days for a rebuild. `stale_since`: the day's rollups miss nothing committed
    before then (None: they may miss anything until rebuilt)."""
    rows = [RollupDirtyDay(app_id=app_id, kind=kind, day=day, stale_since=stale_since,
                           marked_at=timezone.now()) for day in days]
    if stale_since is None:  # a repair: the day may miss anything, whatever it said before
        RollupDirtyDay.objects.bulk_create(rows, batch_size=1_000, update_conflicts=True,
                                           unique_fields=["app", "kind", "day"],
                                           update_fields=["stale_since", "marked_at"])
    else:  # a day queued already keeps its older stale_since: it still misses what that says
        RollupDirtyDay.objects.bulk_create(rows, batch_size=1_000, ignore_conflicts=True)
    return len(rows)


def queue_app(*, app_id: uuid.UUID, start: date | None = None, end: date | None = None,
              stale_since: datetime | None = None) -> int:
    """Queue every day of an app (or of start..end) for a rebuild of all its rollups."""
    span = rollup_rows.app_activity_span(app_id=app_id)
    if span is None and (start is None or end is None):
        return 0
    first = start or span[0]
    last = end or span[1]
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    return sum(queue(app_id=app_id, kind=kind, days=days, stale_since=stale_since)
               for kind in RollupKind)


def next_day(*, skip: Iterable[int]) -> RollupDirtyDay | None:
    # Install days first: an event day reads the touchpoint shares an install day writes.
    return (RollupDirtyDay.objects.exclude(id__in=list(skip))
            .order_by("kind", "day", "id").first())
