"""An incremental pass: add to the rollups what committed in tracking since the last pass.

A pass takes a new watermark from the database (tracking/changes.py), reads the rows committed
after the stored one and by the new one, adds their figures to the rollups, and stores the new
watermark, all in the caller's transaction: the figures and the watermark move together, so a
row is added exactly once whatever fails or runs twice. Nothing is added to the SDK hot paths.

Two cases go the rebuild way instead (their days are queued, see analytics.rollups.rebuild):
a backlog larger than INCREMENTAL_LIMIT rows (a bulk load, or beat stopped for a while), where
rebuilding the touched days is cheaper than adding row by row; and installs stamped more than
RECENT_INSTALL_AGE before the watermark (an import, or a pass delayed that long), whose
touchpoint clicks may be gone from the click hot store the pass reads them from.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.conf import settings

from analytics.models import InstallTouchpoint, RollupKind
from analytics.rollups.figures import (
    MODEL_FIELDS,
    RETENTION_MAX_AGE,
    TOUCHPOINT_WINDOW,
    Weights,
    click_figures,
    install_figures,
    missing_own_clicks,
    retention_increments,
    revenue_figures,
    touches_for,
)
from analytics.rollups.store import add_clicks, add_installs, add_retention, add_revenue
from apps_registry.selectors import existing_app_ids
from tracking.changes import Watermark
from tracking.reporting import rollup_rows
from tracking.services import HOT_STORE_SLACK

INCREMENTAL_LIMIT = 50_000
RECENT_INSTALL_AGE = HOT_STORE_SLACK / 2
KIND_OF_TABLE = {"installs": RollupKind.INSTALLS, "clicks": RollupKind.CLICKS,
                 "events": RollupKind.EVENTS}


@dataclass(frozen=True)
class Applied:
    rows_added: int = 0
    # Arrivals left to day rebuilds instead: {(app_id, kind): days to queue}.
    to_rebuild: dict[tuple, set[date]] = field(default_factory=dict)


def apply(*, after: Watermark, through: Watermark) -> Applied:
    """Add the arrivals between two watermarks, or say which days to rebuild instead."""
    scope = rollup_rows.Arrivals(after=after, through=through)
    counts = rollup_rows.arrival_counts(scope)
    if sum(counts.values()) > INCREMENTAL_LIMIT:
        return Applied(to_rebuild=_days_to_rebuild(scope))
    installs = rollup_rows.installs(scope) if counts["installs"] else []
    if any(i.installed_at < through.taken_at - RECENT_INSTALL_AGE for i in installs):
        return Applied(to_rebuild=_days_to_rebuild(scope))
    clicks = rollup_rows.click_counts(scope) if counts["clicks"] else []
    revenue = rollup_rows.revenue_events(scope) if counts["events"] else []
    activity = (rollup_rows.activity_arrived(scope, max_age_days=RETENTION_MAX_AGE)
                if counts["events"] else [])
    # An app deleted since its rows arrived has no rollups left to add to.
    live = existing_app_ids(app_ids={row.app_id for rows in (installs, clicks, revenue, activity)
                                     for row in rows})
    if installs:
        _add_installs([row for row in installs if row.app_id in live])
    add_clicks(click_figures(row for row in clicks if row.app_id in live))
    revenue = [row for row in revenue if row.app_id in live]
    if revenue:
        paid = {row.install_id for row in revenue if row.install_id and not row.is_organic}
        add_revenue(revenue_figures(revenue, weights=touchpoint_weights(paid)))
    activity = [row for row in activity if row.app_id in live]
    if activity:
        already = rollup_rows.active_before(activity, seen=after)
        add_retention(retention_increments(activity, already))
    return Applied(rows_added=sum(counts.values()))


def _days_to_rebuild(scope: rollup_rows.Arrivals) -> dict[tuple, set[date]]:
    found = rollup_rows.days_arrived(scope)
    live = existing_app_ids(app_ids={app_id for by_app in found.values() for app_id in by_app})
    return {(app_id, KIND_OF_TABLE[table]): days
            for table, by_app in found.items()
            for app_id, days in by_app.items() if app_id in live}


def _add_installs(installs: list[rollup_rows.InstallRow]) -> None:
    paid = [install for install in installs if not install.is_organic]
    by_app: dict[uuid.UUID, list[rollup_rows.InstallRow]] = defaultdict(list)
    for install in paid:
        by_app[install.app_id].append(install)
    touches: dict[uuid.UUID, list] = {}
    for app_id, app_installs in by_app.items():
        device_clicks = _device_clicks(app_id, app_installs)
        own = rollup_rows.clicks_by_id(app_id=app_id, click_ids=missing_own_clicks(
            app_installs, device_clicks))
        touches.update(touches_for(app_installs, device_clicks=device_clicks,
                                   own_clicks={c.id: c for c in own}))
    half_life = timedelta(hours=settings.ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS)
    add_installs(install_figures(installs, touches=touches, half_life=half_life))


def _device_clicks(app_id: uuid.UUID,
                   installs: list[rollup_rows.InstallRow]) -> list[rollup_rows.ClickRow]:
    with_device = [install for install in installs if install.device_id]
    if not with_device:
        return []
    return rollup_rows.recent_device_clicks(
        app_id=app_id, device_ids=[install.device_id for install in with_device],
        since=min(install.installed_at for install in with_device) - TOUCHPOINT_WINDOW,
        until=max(install.installed_at for install in with_device))


def touchpoint_weights(install_ids) -> Weights:
    """The stored touchpoint shares of these installs."""
    ids = sorted(install_ids)
    found: Weights = defaultdict(list)
    for offset in range(0, len(ids), 1_000):
        for install_id, media_source, campaign_id, *shares in (
                InstallTouchpoint.objects.filter(install_id__in=ids[offset:offset + 1_000])
                .values_list("install_id", "media_source", "campaign_id",
                             *MODEL_FIELDS)):
            found[install_id].append((media_source, campaign_id, tuple(shares)))
    return found
