"""The cost report (`GET /api/v1/analytics/cost`; docs/analytics.md, "Ad spend in reports"):
the spend that counts (analytics.costs: pulled over uploaded over none) grouped by media source,
campaign, ad set, ad or day, beside the installs and revenue it bought: CPI and ROAS per row.

Installs and revenue are campaign-level figures in the rollups, so they are given for the
media source, campaign and day groupings only; grouped by ad set or ad they are null rather than
a guess. They are those of the campaigns with spend in the range: an uploaded row without a
campaign is its media source's spend, and covers that source's campaigns that have no spend
of their own (their installs count under its row).

iOS: SKAdNetwork and AdAttributionKit installs and their conversion-schema revenue stand
beside the spend of the campaign their source identifier is mapped to (SKAN CPI, SKAN ROAS),
read through a reader the conversion app hands over (it imports analytics, so analytics
cannot import it). Postbacks come a day or more after the install at a time Apple randomizes,
so they are counted by the range they arrived in, by media source or campaign, never by day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import Sum

from analytics import costs
from analytics.models import DailyInstallStat, DailyRevenueStat, SourceType
from analytics.money import Money
from analytics.queries import HUNDRED, Period, rate_book, ratio

GROUPINGS = ("media_source", "campaign", "adset", "ad", "day")
BY_AD = {"adset", "ad"}  # below the campaign: no installs or revenue there
SKAN_GROUPINGS = {"media_source", "campaign"}


@dataclass(frozen=True)
class SkanCampaignFigure:
    """A SKAN campaign's postbacks arrived in the range: `campaign_id` is the network campaign
    its source identifier is mapped to, None when it is mapped to none."""

    media_source: str
    campaign_id: str | None
    installs: int
    revenue: Money  # conversion-schema revenue, in the report currency


# (app_id, start, end, currency) -> the app's SKAN figures; None until conversion hands it over.
SkanFiguresReader = Callable[..., list[SkanCampaignFigure]]
_skan_figures: SkanFiguresReader | None = None


def skan_figures_reader_register(reader: SkanFiguresReader | None) -> None:
    """Use `reader` for SKAN installs and revenue per mapped campaign (None: not installed)."""
    global _skan_figures
    _skan_figures = reader


@dataclass
class CostLine:
    media_source: str | None = None
    campaign_id: str | None = None
    adset_id: str | None = None
    ad_id: str | None = None
    day: date | None = None
    spend: Money = field(default_factory=Money)
    impressions: int | None = None
    clicks: int | None = None
    installs: int | None = None
    revenue: Money | None = None
    skan_installs: int | None = None
    skan_revenue: Money | None = None
    sources: set[str] = field(default_factory=set)

    @property
    def cost_source(self) -> str | None:
        return costs.source_of(self.sources)

    @property
    def cpi(self) -> Decimal | None:
        if not self.spend.known or self.installs is None:
            return None
        return ratio(self.spend.amount, self.installs)

    @property
    def roas(self) -> Decimal | None:
        if not self.spend.known or self.revenue is None:
            return None
        return ratio(self.revenue.amount, self.spend.amount, scale=HUNDRED)

    @property
    def skan_cpi(self) -> Decimal | None:
        if not self.spend.known or self.skan_installs is None:
            return None
        return ratio(self.spend.amount, self.skan_installs)

    @property
    def skan_roas(self) -> Decimal | None:
        if not self.spend.known or self.skan_revenue is None:
            return None
        return ratio(self.skan_revenue.amount, self.spend.amount, scale=HUNDRED)

    def skan_add(self, figure: SkanCampaignFigure) -> None:
        self.skan_installs = (self.skan_installs or 0) + figure.installs
        self.skan_revenue = self.skan_revenue or Money()
        self.skan_revenue.merge(figure.revenue)

    def add_counts(self, figure: costs.CostFigure) -> None:
        if figure.impressions is not None:
            self.impressions = (self.impressions or 0) + figure.impressions
        if figure.clicks is not None:
            self.clicks = (self.clicks or 0) + figure.clicks


@dataclass(frozen=True)
class CostReport:
    group_by: str
    rows: list[CostLine]
    total: CostLine
    # SKAN installs whose source identifier is mapped to no campaign with spend in the range;
    # None where SKAN figures are not given (no postbacks, or a grouping below the campaign).
    skan_unmatched_installs: int | None = None


def _identity(group_by: str) -> Callable[..., dict]:
    """The fields naming a row of this grouping, from a figure's or a rollup's key."""
    if group_by == "day":
        return lambda day, media_source, campaign_id, adset_id="", ad_id="": {"day": day}
    if group_by == "media_source":
        return lambda day, media_source, *_: {"media_source": media_source}
    if group_by == "campaign":
        return lambda day, media_source, campaign_id, *_: {
            "media_source": media_source, "campaign_id": campaign_id}
    if group_by == "adset":
        return lambda day, media_source, campaign_id, adset_id="", *_: {
            "media_source": media_source, "campaign_id": campaign_id, "adset_id": adset_id}
    return lambda day, media_source, campaign_id, adset_id="", ad_id="": {
        "media_source": media_source, "campaign_id": campaign_id, "adset_id": adset_id,
        "ad_id": ad_id}


def cost_report(*, period: Period, currency: str, group_by: str) -> CostReport:
    figures = period.costs(by_ad=group_by in BY_AD)
    identity = _identity(group_by)
    lines: dict[tuple, CostLine] = {}

    def line(**named) -> CostLine:
        key = tuple(sorted(named.items()))
        if key not in lines:
            lines[key] = CostLine(**named)
        return lines[key]

    campaign_level = group_by not in BY_AD
    spent = {(f.media_source, f.campaign_id) for f in figures}

    def bought_by(media_source: str, campaign_id: str) -> str | None:
        """The campaign whose spend an install of this campaign counts under, if any."""
        if (media_source, campaign_id) in spent:
            return campaign_id
        return "" if (media_source, "") in spent else None

    installs = revenue = []
    if campaign_level and spent:
        sources = {source for source, _ in spent}
        installs = list(period.rows(DailyInstallStat)
                        .filter(source_type=SourceType.PAID, media_source__in=sources)
                        .values_list("day", "media_source", "campaign_id")
                        .annotate(n=Sum("installs")).order_by())
        revenue = list(period.rows(DailyRevenueStat)
                       .filter(source_type=SourceType.PAID, media_source__in=sources)
                       .values_list("day", "currency", "media_source", "campaign_id")
                       .annotate(amount=Sum("revenue")).order_by())
    book = rate_book(target=currency,
                     currencies=[f.currency for f in figures] + [r[1] for r in revenue],
                     through=period.end)
    total = CostLine(installs=0 if campaign_level else None,
                     revenue=Money() if campaign_level else None)
    for figure in figures:
        target = line(**identity(figure.day, figure.media_source, figure.campaign_id,
                                 figure.adset_id, figure.ad_id))
        for each in (target, total):
            each.spend.add(book, figure.spend, figure.currency, figure.day)
            each.add_counts(figure)
            each.sources.add(figure.source)
        if campaign_level:
            target.installs = target.installs or 0
            target.revenue = target.revenue or Money()
    for day, media_source, campaign_id, n in installs:
        campaign = bought_by(media_source, campaign_id)
        if campaign is not None:
            target = line(**identity(day, media_source, campaign))
            target.installs = (target.installs or 0) + n
            total.installs += n
    for day, row_currency, media_source, campaign_id, amount in revenue:
        campaign = bought_by(media_source, campaign_id)
        if campaign is not None:
            target = line(**identity(day, media_source, campaign))
            target.revenue = target.revenue or Money()
            target.installs = target.installs or 0
            for each in (target.revenue, total.revenue):
                each.add(book, amount, row_currency, day)
    skan_unmatched = _skan_beside_spend(period, currency, group_by, bought_by=bought_by,
                                        line=line, identity=identity, total=total,
                                        spending=list(lines.values()))
    if group_by == "day":
        ordered = sorted(lines.values(), key=lambda r: r.day)
    else:
        ordered = sorted(lines.values(), key=lambda r: (
            -r.spend.amount, r.media_source or "", r.campaign_id or "", r.adset_id or "",
            r.ad_id or ""))
    return CostReport(group_by=group_by, rows=ordered, total=total,
                      skan_unmatched_installs=skan_unmatched)


def _skan_beside_spend(period: Period, currency: str, group_by: str, *, bought_by, line,
                       identity, total: CostLine, spending: list[CostLine]) -> int | None:
    """SKAN installs and revenue onto the lines of the campaigns they are mapped to (the same
    campaign-or-media-source rule as attributed installs); the installs left over."""
    if group_by not in SKAN_GROUPINGS or _skan_figures is None:
        return None
    figures = _skan_figures(app_id=period.app_id, start=period.start, end=period.end,
                            currency=currency)
    if not figures:
        return None
    for each in [*spending, total]:  # a campaign with spend and no SKAN install shows 0
        each.skan_installs, each.skan_revenue = 0, Money()
    unmatched = 0
    for figure in figures:
        campaign = (bought_by(figure.media_source, figure.campaign_id)
                    if figure.campaign_id is not None else None)
        if campaign is None:
            unmatched += figure.installs
            continue
        for each in (line(**identity(None, figure.media_source, campaign)), total):
            each.skan_add(figure)
    return unmatched
