"""Writing figures into the rollup tables: a rebuilt day replaces its rows, a pass adds to
them. Both run under the rollup state's lock (see analytics.rollups), so no two writers ever
touch the same rows at once, and an addition is a plain read, add and write: exact in Decimal
on every database, where SQL `x = x + excluded.x` would add floats on SQLite.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date

from django.db.models import Q

from analytics.models import (
    CohortRevenueStat,
    DailyClickStat,
    DailyCreditedRevenueStat,
    DailyCreditStat,
    DailyInstallStat,
    DailyRetentionStat,
    DailyRevenueStat,
    InstallTouchpoint,
)
from analytics.rollups.figures import (
    MODEL_FIELDS,
    InstallFigures,
    RevenueFigures,
    Touchpoint,
)

# Each table's key fields (the figure dicts' keys, in order) and the fields they sum.
INSTALLS = (DailyInstallStat, ("app_id", "day", "source_type", "media_source", "campaign_id"),
            ("installs",))
CLICKS = (DailyClickStat, ("app_id", "day", "media_source", "campaign_id"), ("clicks",))
CREDIT = (DailyCreditStat, ("app_id", "day", "media_source", "campaign_id"), MODEL_FIELDS)
REVENUE = (DailyRevenueStat, ("app_id", "day", "source_type", "media_source", "campaign_id",
                              "currency"), ("revenue", "refunds", "revenue_events"))
COHORT = (CohortRevenueStat, ("app_id", "day", "install_day", "source_type", "media_source",
                              "currency"), ("revenue",))
CREDITED = (DailyCreditedRevenueStat, ("app_id", "day", "media_source", "campaign_id",
                                       "currency"), MODEL_FIELDS)
RETENTION = (DailyRetentionStat, ("app_id", "day", "cohort_day", "age"), ("active_installs",))


def add_installs(figures: InstallFigures) -> None:
    _add(INSTALLS, {key: (n,) for key, n in figures.installs.items()})
    _add(CREDIT, figures.credit)
    InstallTouchpoint.objects.bulk_create(_touchpoint_rows(figures.touchpoints),
                                          batch_size=2_000)


def add_clicks(figures: dict) -> None:
    _add(CLICKS, {key: (n,) for key, n in figures.items()})


def add_revenue(figures: RevenueFigures) -> None:
    _add(REVENUE, figures.revenue)
    _add(COHORT, {key: (amount,) for key, amount in figures.cohort.items()})
    _add(CREDITED, figures.credited)


def add_retention(figures: dict) -> None:
    _add(RETENTION, {key: (n,) for key, n in figures.items()})


def replace_install_day(*, app_id: uuid.UUID, day: date, figures: InstallFigures) -> None:
    _replace(INSTALLS, app_id, day, {key: (n,) for key, n in figures.installs.items()})
    InstallTouchpoint.objects.filter(app_id=app_id, install_day=day).delete()
    InstallTouchpoint.objects.bulk_create(_touchpoint_rows(figures.touchpoints),
                                          batch_size=2_000)
    _replace(CREDIT, app_id, day, figures.credit)


def replace_click_day(*, app_id: uuid.UUID, day: date, figures: dict) -> None:
    _replace(CLICKS, app_id, day, {key: (n,) for key, n in figures.items()})


def replace_event_day(*, app_id: uuid.UUID, day: date, figures: RevenueFigures,
                      retention: dict) -> None:
    _replace(REVENUE, app_id, day, figures.revenue)
    _replace(COHORT, app_id, day, {key: (amount,) for key, amount in figures.cohort.items()})
    _replace(CREDITED, app_id, day, figures.credited)
    _replace(RETENTION, app_id, day, {key: (n,) for key, n in retention.items()})


def _touchpoint_rows(touchpoints: Iterable[Touchpoint]) -> list[InstallTouchpoint]:
    return [InstallTouchpoint(app_id=t.app_id, install_id=t.install_id,
                              install_day=t.install_day, media_source=t.media_source,
                              campaign_id=t.campaign_id, touches=t.touches,
                              **dict(zip(MODEL_FIELDS, t.shares, strict=True)))
            for t in touchpoints]


def _replace(table, app_id: uuid.UUID, day: date, figures: dict) -> None:
    model, keys, sums = table
    model.objects.filter(app_id=app_id, day=day).delete()
    model.objects.bulk_create(_new_rows(table, figures), batch_size=2_000)


def _add(table, figures: dict) -> None:
    """Add each key's sums to its stored row, or store a new row."""
    if not figures:
        return
    model, keys, sums = table
    days = Q()
    for app_id, day in {key[:2] for key in figures}:
        days |= Q(app_id=app_id, day=day)
    stored = {tuple(getattr(row, name) for name in keys): row
              for row in model.objects.filter(days)}
    changed = []
    new = {}
    for key, values in figures.items():
        row = stored.get(key)
        if row is None:
            new[key] = values
            continue
        for name, value in zip(sums, values, strict=True):
            setattr(row, name, getattr(row, name) + value)
        changed.append(row)
    model.objects.bulk_update(changed, list(sums), batch_size=500)
    model.objects.bulk_create(_new_rows(table, new), batch_size=2_000)


def _new_rows(table, figures: dict) -> list:
    model, keys, sums = table
    return [model(**dict(zip(keys, key, strict=True)), **dict(zip(sums, values, strict=True)))
            for key, values in figures.items()]
