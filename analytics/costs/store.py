"""The one write of pulled ad spend (docs/analytics.md, "Ad spend in reports"): a connection's
rows for the days a pull covers are replaced whole, so a network's restatement of a past day
replaces the old figure and nothing is counted twice.

Rows arrive as an iterable and are written in batches inside one transaction: a pull of
150,000 rows never sits in memory at once (bench/cost_write.py measures it), and readers see
either the old days or the new ones, never half.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from itertools import islice

from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone

from analytics.costs.rows import MEDIA_SOURCES, SpendRow, row_problem
from analytics.models import PulledCost

BATCH_ROWS = 2_000
_UPDATED = ["media_source", "account", "campaign_name", "adset_name", "ad_name", "currency",
            "spend", "impressions", "clicks", "pulled_at"]


class CostRowsRefused(ValueError):
    """A row that cannot be stored; nothing of the pull was written."""


@dataclass(frozen=True)
class ReplaceOutcome:
    rows: int  # rows stored for the days (a key repeated in the pull counts once: the last wins)
    removed: int  # rows of the covered days that were there before
    spend: dict[str, Decimal] = field(default_factory=dict)  # total per currency


def cost_rows_replace(*, app_id: uuid.UUID, connection: str, media_source: str, account: str,
                      days: Iterable[date], rows: Iterable[SpendRow]) -> ReplaceOutcome:
    """Replace `connection`'s rows of `days` with `rows`, all or nothing.

    `connection` is the caller's stable label for one cost connection of the app (such as
    "meta"); `days` are every day the pull asked for, so a day the network now reports
    nothing for loses its old rows. A row outside `days`, of a bad shape, or a media source
    attribution does not write raises `CostRowsRefused` and the transaction rolls back.
    """
    covered = frozenset(days)
    if media_source not in MEDIA_SOURCES:
        raise CostRowsRefused(f"media_source {media_source!r} is not one of {MEDIA_SOURCES}")
    if not connection or len(connection) > 64:
        raise CostRowsRefused("connection must be 1 to 64 characters")
    now = timezone.now()
    rows = iter(rows)
    with transaction.atomic():
        removed, _ = PulledCost.objects.filter(app_id=app_id, connection=connection,
                                               day__in=covered).delete()
        while batch := list(islice(rows, BATCH_ROWS)):
            # One statement cannot upsert the same key twice; the last of a repeat wins, as a
            # later page restating a row would. Across batches the upsert does the same.
            unique: dict[tuple, SpendRow] = {}
            for row in batch:
                problem = row_problem(row)
                if problem is None and row.day not in covered:
                    problem = f"day {row.day} is outside the days the pull covers"
                if problem is not None:
                    raise CostRowsRefused(f"{problem} (campaign {row.campaign_id!r})")
                unique[row.key] = row
            PulledCost.objects.bulk_create(
                [PulledCost(app_id=app_id, connection=connection, media_source=media_source,
                            account=account, day=row.day, campaign_id=row.campaign_id,
                            adset_id=row.adset_id, ad_id=row.ad_id,
                            campaign_name=row.campaign_name[:512],
                            adset_name=row.adset_name[:512], ad_name=row.ad_name[:512],
                            currency=row.currency, spend=row.spend,
                            impressions=row.impressions, clicks=row.clicks, pulled_at=now)
                 for row in unique.values()],
                update_conflicts=True, update_fields=_UPDATED,
                unique_fields=["app", "connection", "day", "campaign_id", "adset_id", "ad_id"])
        # Counted from what is stored: a key repeated across batches was written twice.
        totals = (PulledCost.objects.filter(app_id=app_id, connection=connection,
                                            day__in=covered)
                  .values_list("currency").annotate(rows=Count("id"), spend=Sum("spend"))
                  .order_by())
        spend = {currency: total for currency, _, total in totals}
        stored = sum(count for _, count, _ in totals)
    return ReplaceOutcome(rows=stored, removed=removed, spend=spend)
