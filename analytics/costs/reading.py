"""Reads of ad spend for the reports (docs/analytics.md, "Ad spend in reports"): pulled rows
summed in SQL, uploaded CSV rows as stored, and `precedence.counted` deciding which count. No
report reads `PulledCost` or `CampaignCost` for cost any other way.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date

from django.db.models import Sum

from analytics.costs.precedence import CSV, PULL, CostFigure, PulledKeys, counted
from analytics.models import CampaignCost, PulledCost


def counted_costs(*, app_id: uuid.UUID, start: date, end: date, by_ad: bool = False
                  ) -> list[CostFigure]:
    """The spend that counts for each day of start..end (inclusive), per media source and
    campaign, or per ad set and ad too when `by_ad` (uploaded rows have neither: "")."""
    identity = ["day", "media_source", "campaign_id", "currency"]
    if by_ad:
        identity += ["adset_id", "ad_id"]
    pulled = (PulledCost.objects.filter(app_id=app_id, day__gte=start, day__lte=end)
              .values(*identity)
              .annotate(spend=Sum("spend"), impressions=Sum("impressions"),
                        clicks=Sum("clicks")).order_by())
    uploaded = (CampaignCost.objects.filter(app_id=app_id, day__gte=start, day__lte=end)
                .values_list("day", "media_source", "campaign_id", "currency", "cost"))
    return counted(
        pulled=(CostFigure(source=PULL, **row) for row in pulled),
        uploaded=(CostFigure(day=day, media_source=source, campaign_id=campaign,
                             currency=currency, spend=cost, source=CSV)
                  for day, source, campaign, currency, cost in uploaded))


def pulled_keys(*, app_id: uuid.UUID, days: Iterable[date]) -> PulledKeys:
    """The (day, media source, campaign) keys pulled rows cover on `days`."""
    return PulledKeys.of(PulledCost.objects.filter(app_id=app_id, day__in=set(days))
                         .values_list("day", "media_source", "campaign_id").distinct()
                         .order_by())
