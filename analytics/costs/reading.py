"""Reads of ad spend for the reports (docs/analytics.md, "Ad spend in reports"): pulled rows
summed in SQL, uploaded CSV rows as stored, and `precedence.counted` deciding which count. No
report reads `PulledCost` or `CampaignCost` for cost any other way; raw export's `cost` topic
reads them through `rows_for_export`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime

from django.db import transaction
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


EXPORT_FIELDS = ("app_id", "source", "connection", "media_source", "account", "day",
                 "campaign_id", "campaign_name", "adset_id", "adset_name", "ad_id", "ad_name",
                 "currency", "spend", "impressions", "clicks", "recorded_at")


def rows_for_export(*, app_ids: Sequence[uuid.UUID], since: datetime | None, until: datetime
                    ) -> Iterator[tuple]:
    """Cost rows written in [since, until) (since None: from the start) as tuples in
    EXPORT_FIELDS order, ids as text: pulled rows by the time of their pull, then uploaded
    rows by the time of their import, each oldest first. A pull replaces its days, so a
    restated day comes again with a later time; `source` says which rule ranks it
    (precedence.py)."""
    pulled = PulledCost.objects.filter(app_id__in=list(app_ids), pulled_at__lt=until)
    uploaded = CampaignCost.objects.filter(app_id__in=list(app_ids), updated_at__lt=until)
    if since is not None:
        pulled = pulled.filter(pulled_at__gte=since)
        uploaded = uploaded.filter(updated_at__gte=since)
    with transaction.atomic():  # one snapshot for the server-side cursor
        for row in (pulled.order_by("pulled_at", "id").values_list(
                "app_id", "connection", "media_source", "account", "day", "campaign_id",
                "campaign_name", "adset_id", "adset_name", "ad_id", "ad_name", "currency",
                "spend", "impressions", "clicks", "pulled_at").iterator(chunk_size=5_000)):
            yield (str(row[0]), PULL, *row[1:])
        for (app_id, source, day, campaign_id, currency, cost, updated_at) in (
                uploaded.order_by("updated_at", "id").values_list(
                    "app_id", "media_source", "day", "campaign_id", "currency", "cost",
                    "updated_at").iterator(chunk_size=5_000)):
            yield (str(app_id), CSV, "", source, "", day, campaign_id, "", "", "", "", "",
                   currency, cost, None, None, updated_at)
