"""What the rollups hold, computed from tracking's rows. Pure: no ORM, no clock.

A day's rebuild and an incremental pass feed the same functions, the one with a day's rows and
the other with the rows that arrived since the last pass, so both count alike: every figure is
a sum over rows (installs, clicks, revenue, credit), and adding the sums of two disjoint sets
of rows gives the sum of their union. The one count that is not a sum of rows, installs active
on a day for retention, is counted per (install, day) with the ones already active left out
(`retention_increments`). Credited revenue is rounded per event, not per total, so the order
in which events arrive cannot change the last decimal.

Every key starts with (app_id, day), the day a row is stored under.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from analytics import counting, touch_credit
from analytics.models import SourceType
from tracking import attribution
from tracking.reporting.rollup_rows import (
    Activity,
    ClickCount,
    ClickRow,
    InstallRow,
    RevenueEventRow,
)

# A touchpoint is a click the waterfall could have chosen: the same window.
TOUCHPOINT_WINDOW = attribution.WINDOW
RETENTION_MAX_AGE = 30  # the oldest day n of Dn retention kept (D1, D7, D30 are reported)
MODEL_FIELDS = ("last_touch", "first_touch", "linear", "time_decay")
CREDIT_QUANTUM = Decimal("1e-10")
ZERO = Decimal(0)

# Plain strings, not the enum: keys are compared with the values read back from the tables.
PAID, ORGANIC, NO_INSTALL = (SourceType.PAID.value, SourceType.ORGANIC.value,
                             SourceType.NO_INSTALL.value)

Weights = dict[uuid.UUID, list[tuple[str, str, tuple[Decimal, ...]]]]


@dataclass(frozen=True)
class Touchpoint:
    app_id: uuid.UUID
    install_id: uuid.UUID
    install_day: date
    media_source: str
    campaign_id: str
    touches: int
    shares: tuple[Decimal, ...]  # in MODEL_FIELDS order


@dataclass
class InstallFigures:
    installs: Counter = field(default_factory=Counter)  # (app, day, type, source, campaign)
    touchpoints: list[Touchpoint] = field(default_factory=list)
    credit: dict = field(default_factory=lambda: defaultdict(lambda: [ZERO] * 4))  # (app, day,
    # source, campaign) -> shares summed per model


@dataclass
class RevenueFigures:
    # (app, day, type, source, campaign, currency) -> [net revenue, refunds, events]
    revenue: dict = field(default_factory=lambda: defaultdict(lambda: [ZERO, ZERO, 0]))
    # (app, day, install day, type, source, currency) -> revenue
    cohort: dict = field(default_factory=lambda: defaultdict(Decimal))
    # (app, day, source, campaign, currency) -> revenue x share, per model
    credited: dict = field(default_factory=lambda: defaultdict(lambda: [ZERO] * 4))


def missing_own_clicks(installs: Iterable[InstallRow],
                       device_clicks: Sequence[ClickRow]) -> set[uuid.UUID]:
    """The clicks the waterfall chose that are not among the installs' device clicks."""
    found = {click.id for click in device_clicks}
    return {install.click_id for install in installs
            if install.click_id is not None and install.click_id not in found}


def touches_for(installs: Iterable[InstallRow], *, device_clicks: Sequence[ClickRow],
                own_clicks: dict[uuid.UUID, ClickRow]) -> dict[uuid.UUID, list]:
    """Each install's clicks matched on its device within the window before it, plus the
    click the waterfall chose (or, if that click is not archived, the verdict itself)."""
    by_device: dict[str, list[ClickRow]] = defaultdict(list)
    for click in device_clicks:
        by_device[click.advertising_id].append(click)
    touches: dict[uuid.UUID, list[touch_credit.Touch]] = {}
    for install in installs:
        earliest = install.installed_at - TOUCHPOINT_WINDOW
        clicks = [click for click in by_device.get(install.device_id or "", ())
                  if earliest <= click.clicked_at <= install.installed_at]
        if install.click_id in own_clicks and all(c.id != install.click_id for c in clicks):
            clicks.append(own_clicks[install.click_id])
        found = [touch_credit.Touch(key=(c.media_source, c.campaign_id), at=c.clicked_at,
                                    click_id=str(c.id)) for c in clicks]
        if install.click_id is None or all(c.id != install.click_id for c in clicks):
            found.append(touch_credit.Touch(
                key=(install.media_source or "", install.campaign_id or ""),
                at=install.attributed_touch_time or install.installed_at, click_id=""))
        touches[install.id] = found
    return touches


def install_figures(installs: Iterable[InstallRow], *, touches: dict[uuid.UUID, list],
                    half_life: timedelta) -> InstallFigures:
    """Install counts by source and campaign, and each paid install's touchpoint shares."""
    figures = InstallFigures()
    for install in installs:
        day = install.installed_at.date()
        if not counting.counted(install.fraud_status):
            # Counted apart, under a source type named as the status (never paid or organic).
            figures.installs[(install.app_id, day, install.fraud_status,
                              install.media_source or install.refused_media_source or "",
                              install.campaign_id or install.refused_campaign_id or "")] += 1
            continue
        if install.is_organic:
            figures.installs[(install.app_id, day, ORGANIC, "", "")] += 1
            continue
        verdict = (install.media_source or "", install.campaign_id or "")
        figures.installs[(install.app_id, day, PAID, *verdict)] += 1
        shares = touch_credit.install_credit(touches=touches[install.id], verdict=verdict,
                                             installed_at=install.installed_at,
                                             half_life=half_life)
        for (media_source, campaign_id), share in shares.items():
            weights = tuple(getattr(share, name) for name in MODEL_FIELDS)
            figures.touchpoints.append(Touchpoint(
                app_id=install.app_id, install_id=install.id, install_day=day,
                media_source=media_source, campaign_id=campaign_id, touches=share.touches,
                shares=weights))
            sums = figures.credit[(install.app_id, day, media_source, campaign_id)]
            for index, weight in enumerate(weights):
                sums[index] += weight
    return figures


def click_figures(counts: Iterable[ClickCount]) -> Counter:
    """(app, day, source, campaign) -> clicks."""
    figures: Counter = Counter()
    for count in counts:
        figures[(count.app_id, count.day, count.media_source, count.campaign_id)] += count.clicks
    return figures


def revenue_figures(rows: Iterable[RevenueEventRow], *, weights: Weights) -> RevenueFigures:
    """Revenue by source and currency, by install cohort, and credited under each model. An
    install with no touchpoints yet gives all its credit to its own source and campaign, as
    last-touch would."""
    figures = RevenueFigures()
    for row in rows:
        status = counting.event_status(is_blocked=row.is_blocked,
                                       install_status=row.install_fraud_status)
        if not counting.counted(status):
            key = (status, row.media_source or "", row.campaign_id or "")
        elif row.install_id is None:
            key = (NO_INSTALL, "", "")
        elif row.is_organic:
            key = (ORGANIC, "", "")
        else:
            key = (PAID, row.media_source or "", row.campaign_id or "")
        sums = figures.revenue[(row.app_id, row.day, *key, row.currency)]
        sums[0] += row.amount
        if row.amount < 0:
            sums[1] += row.amount
        sums[2] += 1
        if row.install_id is not None:
            figures.cohort[(row.app_id, row.day, _day(row.installed_at), key[0], key[1],
                            row.currency)] += row.amount
        if key[0] == PAID:
            for media_source, campaign_id, shares in weights.get(
                    row.install_id, [(key[1], key[2], (Decimal(1),) * 4)]):
                credited = figures.credited[(row.app_id, row.day, media_source, campaign_id,
                                             row.currency)]
                for index, share in enumerate(shares):
                    credited[index] += (row.amount * share).quantize(CREDIT_QUANTUM)
    return figures


def retention_increments(activity: Iterable[Activity],
                         already_active: set[tuple[uuid.UUID, date]]) -> Counter:
    """(app, day, install day, age) -> installs that became active on the day, leaving out
    those already counted active on it and those that do not count (counting.py): a cohort is
    the installs the reports count."""
    figures: Counter = Counter()
    for item in activity:
        if not counting.counted(item.install_fraud_status):
            continue
        if (item.install_id, item.day) not in already_active:
            figures[(item.app_id, item.day, item.cohort, (item.day - item.cohort).days)] += 1
    return figures


def _day(moment: datetime | None) -> date | None:
    return moment.date() if moment is not None else None
