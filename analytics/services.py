"""Writes of operator input for analytics (docs/analytics.md, "Currencies"): ad cost rows,
imported through POST /api/v1/costs, `manage.py import_costs` or the console's upload, and
currency rates, loaded with `manage.py load_currency_rates`, the console's rates page or the
admin.

Cost rows uploaded here rank below spend pulled from a network (analytics.costs.precedence):
an import says which of its rows are shadowed. Both are upserts on their natural key, so
importing a corrected file replaces the old figures and importing the same file twice changes
nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from analytics import costs
from analytics.models import CampaignCost, CurrencyRate

BATCH_ROWS = 1_000


@dataclass(frozen=True)
class CostRow:
    day: date
    media_source: str
    campaign_id: str
    cost: Decimal
    currency: str

    @property
    def key(self) -> tuple[date, str, str]:
        return (self.day, self.media_source, self.campaign_id)


@dataclass(frozen=True)
class RateRow:
    day: date
    currency: str
    units_per_usd: Decimal


SHOWN_SHADOWED = 100


@dataclass(frozen=True)
class UpsertOutcome:
    rows: int
    created: int
    updated: int
    # Cost rows stored but outranked by pulled spend (analytics.costs.precedence).
    shadowed: tuple[tuple[date, str, str], ...] = ()

    @property
    def shadowed_count(self) -> int:
        return len(self.shadowed)

    @property
    def shadowed_first(self) -> tuple[tuple[date, str, str], ...]:
        return self.shadowed[:SHOWN_SHADOWED]


def duplicate_keys(rows: Sequence[CostRow]) -> list[tuple[int, int]]:
    """(index, index of its first occurrence) for each row whose key appeared before."""
    seen: dict[tuple, int] = {}
    repeats = []
    for index, row in enumerate(rows):
        if row.key in seen:
            repeats.append((index, seen[row.key]))
        else:
            seen[row.key] = index
    return repeats


def costs_import(*, app_id: uuid.UUID, rows: Sequence[CostRow], progress=None) -> UpsertOutcome:
    """Insert or replace cost rows per (app, day, media source, campaign), all or nothing.
    The caller refuses repeated keys first (see duplicate_keys): which one wins is ambiguous.
    The outcome names the rows a network's pulled spend outranks: stored, but not counted."""
    now = timezone.now()
    outcome = _upsert(
        CampaignCost, rows, key=lambda row: row.key,
        stored_keys=lambda days: CampaignCost.objects.filter(app_id=app_id, day__in=days)
        .values_list("day", "media_source", "campaign_id"),
        build=lambda row: CampaignCost(app_id=app_id, day=row.day, media_source=row.media_source,
                                       campaign_id=row.campaign_id, cost=row.cost,
                                       currency=row.currency, updated_at=now),
        unique_fields=["app", "day", "media_source", "campaign_id"],
        update_fields=["cost", "currency", "updated_at"], progress=progress)
    pulled = costs.pulled_keys(app_id=app_id, days={row.day for row in rows})
    return replace(outcome, shadowed=tuple(costs.shadowed(uploaded=(row.key for row in rows),
                                                          pulled=pulled)))


def currency_rates_load(*, rows: Sequence[RateRow]) -> UpsertOutcome:
    """Insert or replace rates per (currency, day), all or nothing."""
    now = timezone.now()
    return _upsert(
        CurrencyRate, rows, key=lambda row: (row.currency, row.day),
        stored_keys=lambda days: CurrencyRate.objects.filter(day__in=days)
        .values_list("currency", "day"),
        build=lambda row: CurrencyRate(currency=row.currency, day=row.day,
                                       units_per_usd=row.units_per_usd, updated_at=now),
        unique_fields=["currency", "day"], update_fields=["units_per_usd", "updated_at"])


def _upsert(model, rows: Sequence, *, key, stored_keys, build, unique_fields: list[str],
            update_fields: list[str], progress=None) -> UpsertOutcome:
    """Write rows in batches, replacing those whose key is stored; counts what was new."""
    created = 0
    with transaction.atomic():
        for offset in range(0, len(rows), BATCH_ROWS):
            batch = rows[offset:offset + BATCH_ROWS]
            existing = set(stored_keys({row.day for row in batch}))
            created += sum(1 for row in batch if key(row) not in existing)
            model.objects.bulk_create([build(row) for row in batch], update_conflicts=True,
                                      unique_fields=unique_fields, update_fields=update_fields)
            if progress is not None:
                progress(offset + len(batch), len(rows))
    return UpsertOutcome(rows=len(rows), created=created, updated=len(rows) - created)
