"""Reads behind the Analytics endpoints (spec: Analytics endpoints): one function per endpoint,
over the daily rollups only (never raw events), returning plain dataclasses with exact Decimals.

Ranges are whole UTC days, start..end inclusive. Money is summed per (day, currency) in SQL,
converted to the app's report currency in Python (see analytics.money) and rounded only when
serialized. Every ratio is a ratio of sums; one with a zero (or unknown) denominator is None.
The formulas are listed in docs/metrics.md.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Sum

from analytics import costs, counting
from analytics.models import (
    AppReportSettings,
    CohortRevenueStat,
    CurrencyRate,
    DailyClickStat,
    DailyCreditedRevenueStat,
    DailyCreditStat,
    DailyInstallStat,
    DailyRetentionStat,
    DailyRevenueStat,
    SourceType,
)
from analytics.money import Money, RateBook
from analytics.rollups import TOUCHPOINT_WINDOW
from tracking import selectors as tracking_selectors

HUNDRED = Decimal(100)
RETENTION_DAYS = (1, 7, 30)
MODEL_COLUMNS = {"last-touch": "last_touch", "first-touch": "first_touch",
                 "linear": "linear", "time-decay": "time_decay"}


@dataclass(frozen=True)
class Period:
    app_id: uuid.UUID
    start: date
    end: date  # inclusive

    @property
    def days(self) -> list[date]:
        return [self.start + timedelta(days=n) for n in range((self.end - self.start).days + 1)]

    def rows(self, model, day_field: str = "day"):
        return model.objects.filter(app_id=self.app_id, **{
            f"{day_field}__gte": self.start, f"{day_field}__lte": self.end})

    def costs(self, *, by_ad: bool = False) -> list[costs.CostFigure]:
        """The spend that counts (analytics.costs: pulled over uploaded over none)."""
        return costs.counted_costs(app_id=self.app_id, start=self.start, end=self.end,
                                   by_ad=by_ad)


def counted(rows):
    """The rollup rows of what counts (analytics.counting; docs/metrics.md, "What counts").
    The rollups keep what does not under source types named as its fraud status, so the
    figures apart (blocked installs, their revenue) are read from the same tables."""
    return rows.exclude(source_type__in=counting.NOT_COUNTED)


def ratio(numerator: Decimal | int, denominator: Decimal | int, *,
          scale: Decimal = Decimal(1)) -> Decimal | None:
    if not denominator:
        return None
    return Decimal(numerator) * scale / Decimal(denominator)


def report_currency(*, app_id: uuid.UUID) -> str:
    chosen = AppReportSettings.objects.filter(app_id=app_id).values_list("currency", flat=True)
    return chosen.first() or settings.ANALYTICS_DEFAULT_CURRENCY


def rate_book(*, target: str, currencies: Iterable[str], through: date) -> RateBook:
    """Rates needed to convert amounts of `currencies` dated up to `through` into `target`."""
    wanted = set(currencies) | {target}
    series: dict[str, list[tuple[date, Decimal]]] = defaultdict(list)
    for currency, day, value in CurrencyRate.objects.filter(
            currency__in=wanted, day__lte=through).values_list("currency", "day",
                                                               "units_per_usd"):
        series[currency].append((day, value))
    for currency in wanted - set(series):
        earliest = (CurrencyRate.objects.filter(currency=currency).order_by("day")
                    .values_list("day", "units_per_usd").first())
        if earliest is not None:
            series[currency].append(earliest)
    return RateBook(target=target, rates=series)


def known_currencies() -> list[str]:
    return list(CurrencyRate.objects.values_list("currency", flat=True).distinct().order_by())


# --- Dashboard --------------------------------------------------------------------------------

@dataclass
class DayFigures:
    date: date
    installs: int = 0
    paid_installs: int = 0
    organic_installs: int = 0
    revenue: Money = field(default_factory=Money)
    blocked_installs: int = 0
    post_attribution_installs: int = 0


@dataclass(frozen=True)
class Dashboard:
    total_installs: int
    paid_installs: int
    organic_installs: int
    total_clicks: int
    total_revenue: Money
    total_cost: Money
    average_cpi: Decimal | None
    conversion_rate: Decimal | None
    series: list[DayFigures]
    blocked_installs: int
    post_attribution_installs: int
    # What average_cpi and roas cover: the campaigns whose whole cost converted to the report
    # currency, their paid installs, their cost and the revenue of their installs.
    covered: Coverage


@dataclass(frozen=True)
class Coverage:
    installs: int
    cost: Decimal
    revenue: Decimal
    campaigns: int

    @property
    def cpi(self) -> Decimal | None:
        return ratio(self.cost, self.installs) if self.campaigns else None

    @property
    def roas(self) -> Decimal | None:
        return ratio(self.revenue, self.cost, scale=HUNDRED) if self.campaigns else None


def cost_coverage(campaign_rows: Iterable[Performance]) -> Coverage:
    """Only campaigns whose every cost row converted count: dividing a converted cost by
    installs whose cost is unknown (no rate for its currency, or none imported) would make
    installs look cheaper than they were."""
    covered = [row for row in campaign_rows if row.cost.known and not row.cost.unconverted]
    return Coverage(installs=sum(row.installs for row in covered),
                    cost=sum((row.cost.amount for row in covered), Decimal(0)),
                    revenue=sum((row.revenue.amount for row in covered), Decimal(0)),
                    campaigns=len(covered))


def dashboard(*, period: Period, currency: str) -> Dashboard:
    series = {day: DayFigures(date=day) for day in period.days}
    for day, source_type, installs in (period.rows(DailyInstallStat)
                                       .values_list("day", "source_type")
                                       .annotate(n=Sum("installs")).order_by()):
        figures = series[day]
        if source_type == SourceType.BLOCKED:
            figures.blocked_installs += installs
            continue
        if source_type == SourceType.POST_ATTRIBUTION:
            figures.post_attribution_installs += installs
            continue
        figures.installs += installs
        if source_type == SourceType.ORGANIC:
            figures.organic_installs += installs
        else:
            figures.paid_installs += installs
    revenue = list(counted(period.rows(DailyRevenueStat))
                   .values_list("day", "currency")
                   .annotate(amount=Sum("revenue")).order_by())
    cost = period.costs()
    book = rate_book(target=currency,
                     currencies=[c for _, c, _ in revenue] + [f.currency for f in cost],
                     through=period.end)
    for day, row_currency, amount in revenue:
        series[day].revenue.add(book, amount, row_currency, day)
    total_cost = Money()
    for figure in cost:
        total_cost.add(book, figure.spend, figure.currency, figure.day)
    total_revenue = Money()
    for figures in series.values():
        total_revenue.merge(figures.revenue)
    paid = sum(f.paid_installs for f in series.values())
    clicks = period.rows(DailyClickStat).aggregate(n=Sum("clicks"))["n"] or 0
    covered = cost_coverage(campaigns(period=period, currency=currency))
    return Dashboard(
        total_installs=sum(f.installs for f in series.values()),
        paid_installs=paid,
        organic_installs=sum(f.organic_installs for f in series.values()),
        total_clicks=clicks,
        total_revenue=total_revenue,
        total_cost=total_cost,
        average_cpi=covered.cpi,
        conversion_rate=ratio(paid, clicks, scale=HUNDRED),
        series=list(series.values()),
        blocked_installs=sum(f.blocked_installs for f in series.values()),
        post_attribution_installs=sum(f.post_attribution_installs for f in series.values()),
        covered=covered,
    )


def _cpi(cost: Money, installs: int) -> Decimal | None:
    # No (convertible) cost means "unknown", not "free".
    return ratio(cost.amount, installs) if cost.known else None


# --- Sources and campaigns --------------------------------------------------------------------

@dataclass
class Performance:
    media_source: str | None
    source_type: str
    campaign_id: str | None = None
    installs: int = 0
    clicks: int = 0
    revenue: Money = field(default_factory=Money)
    cost: Money = field(default_factory=Money)
    cost_sources: set[str] = field(default_factory=set)  # costs.PULL, costs.CSV
    campaign_name: str | None = None  # as the platform named it (Meta's referrer), if known
    blocked_installs: int = 0  # refused by the fraud rules: not in `installs`
    post_attribution_installs: int = 0  # taken back after a click-flood finding

    @property
    def conversion_rate(self) -> Decimal | None:
        if self.source_type != SourceType.PAID:
            return None
        return ratio(self.installs, self.clicks, scale=HUNDRED)

    @property
    def cpi(self) -> Decimal | None:
        return _cpi(self.cost, self.installs)

    @property
    def cost_source(self) -> str | None:
        return costs.source_of(self.cost_sources)

    @property
    def roas(self) -> Decimal | None:
        return ratio(self.revenue.amount, self.cost.amount, scale=HUNDRED) if self.cost.known \
            else None


def sources(*, period: Period, currency: str) -> list[Performance]:
    """One row per media source; organic installs and revenue of events linked to no install
    get a row each."""
    return _performance(period=period, currency=currency, by_campaign=False)


def campaigns(*, period: Period, currency: str) -> list[Performance]:
    """One row per (media source, campaign) of attributed installs, clicks and the cost that
    counts (analytics.costs),
    labelled with the campaign's name where a platform gave one."""
    return with_campaign_names(
        _performance(period=period, currency=currency, by_campaign=True), app_id=period.app_id)


def with_campaign_names(rows: list[Performance], *, app_id: uuid.UUID) -> list[Performance]:
    names = tracking_selectors.campaign_names(app_id=app_id)
    for row in rows:
        row.campaign_name = names.get((row.media_source or "", row.campaign_id or ""))
    return rows


def _performance(*, period: Period, currency: str, by_campaign: bool) -> list[Performance]:
    rows: dict[tuple, Performance] = {}
    identity = ("source_type", "media_source", "campaign_id") if by_campaign else (
        "source_type", "media_source")

    def row(source_type: str, media_source: str, campaign_id: str = "") -> Performance:
        key = (source_type, media_source, campaign_id) if by_campaign else (
            source_type, media_source)
        if key not in rows:
            named = source_type == SourceType.PAID
            rows[key] = Performance(
                media_source=(media_source if named else
                              "organic" if source_type == SourceType.ORGANIC else None),
                source_type=source_type,
                campaign_id=campaign_id if by_campaign else None)
        return rows[key]

    installs = period.rows(DailyInstallStat)
    revenue = counted(period.rows(DailyRevenueStat))
    if by_campaign:
        installs = installs.filter(source_type__in=(SourceType.PAID, *counting.NOT_COUNTED))
        revenue = revenue.filter(source_type=SourceType.PAID)
    for source_type, *key, n in (installs.values_list(*identity).annotate(n=Sum("installs"))
                                 .order_by()):
        if source_type == SourceType.BLOCKED:
            row(SourceType.PAID, *key).blocked_installs += n
        elif source_type == SourceType.POST_ATTRIBUTION:
            row(SourceType.PAID, *key).post_attribution_installs += n
        else:
            row(source_type, *key).installs += n
    click_identity = identity[1:]
    for *key, n in (period.rows(DailyClickStat).values_list(*click_identity)
                    .annotate(n=Sum("clicks")).order_by()):
        row(SourceType.PAID, *key).clicks += n
    revenue_rows = list(revenue.values_list("day", "currency", *identity)
                        .annotate(amount=Sum("revenue")).order_by())
    cost_rows = period.costs()
    book = rate_book(target=currency,
                     currencies=[r[1] for r in revenue_rows] + [f.currency for f in cost_rows],
                     through=period.end)
    for day, row_currency, *key, amount in revenue_rows:
        row(*key).revenue.add(book, amount, row_currency, day)
    for figure in cost_rows:
        # A campaign with spend and no installs still gets its row ("cost without installs").
        key = (figure.media_source, figure.campaign_id)[:len(click_identity)]
        target = row(SourceType.PAID, *key)
        target.cost.add(book, figure.spend, figure.currency, figure.day)
        target.cost_sources.add(figure.source)
    order = {SourceType.PAID: 0, SourceType.ORGANIC: 1, SourceType.NO_INSTALL: 2}
    return sorted(rows.values(), key=lambda r: (order[r.source_type], -r.installs,
                                                r.media_source or "", r.campaign_id or ""))


# --- Retention --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cohort:
    date: date
    installs: int
    retained: dict[int, int | None]  # day n -> installs active on day n; None while immature

    def rate(self, n: int) -> Decimal | None:
        retained = self.retained[n]
        return None if retained is None else ratio(retained, self.installs, scale=HUNDRED)


@dataclass(frozen=True)
class Retention:
    cohorts: list[Cohort]
    installs: int
    # Over the cohorts mature for day n only: (retained, their installs).
    pooled: dict[int, tuple[int, int]]

    def rate(self, n: int) -> Decimal | None:
        retained, installs = self.pooled[n]
        return ratio(retained, installs, scale=HUNDRED)


def retention(*, period: Period, today: date) -> Retention:
    """Dn of a cohort is known once its day n is over: cohort day + n < today (UTC)."""
    sizes: dict[date, int] = dict(counted(period.rows(DailyInstallStat)).values_list("day")
                                  .annotate(n=Sum("installs")).order_by())
    active: dict[tuple[date, int], int] = {
        (cohort_day, age): n for cohort_day, age, n in period.rows(
            DailyRetentionStat, "cohort_day").filter(age__in=RETENTION_DAYS)
        .values_list("cohort_day", "age", "active_installs")}
    cohorts = []
    pooled = {n: [0, 0] for n in RETENTION_DAYS}
    for day in period.days:
        installs = sizes.get(day, 0)
        retained: dict[int, int | None] = {}
        for n in RETENTION_DAYS:
            if day + timedelta(days=n) < today:
                retained[n] = active.get((day, n), 0)
                pooled[n][0] += retained[n]
                pooled[n][1] += installs
            else:
                retained[n] = None
        cohorts.append(Cohort(date=day, installs=installs, retained=retained))
    return Retention(cohorts=cohorts, installs=sum(sizes.values()),
                     pooled={n: (r, i) for n, (r, i) in pooled.items()})


# --- Revenue ----------------------------------------------------------------------------------

@dataclass
class SourceValue:
    media_source: str | None
    source_type: str
    installs: int = 0
    cohort_revenue: Money = field(default_factory=Money)
    cost: Money = field(default_factory=Money)  # spend of the install days, as counted

    @property
    def ltv(self) -> Decimal | None:
        return ratio(self.cohort_revenue.amount, self.installs)

    @property
    def roas(self) -> Decimal | None:
        """The cohort's return to date: its revenue so far over the spend of its days."""
        return ratio(self.cohort_revenue.amount, self.cost.amount, scale=HUNDRED) \
            if self.cost.known else None


@dataclass(frozen=True)
class RevenueReport:
    total_revenue: Money
    gross_revenue: Money
    refunds: Money
    revenue_events: int
    installs: int
    cohort_revenue: Money
    by_source: list[SourceValue]
    # Revenue of the range's events that does not count (analytics.counting), refunds
    # included: of blocked installs, and of installs taken back after a click-flood finding.
    blocked_revenue: Money
    post_attribution_revenue: Money

    @property
    def arpu(self) -> Decimal | None:
        return ratio(self.total_revenue.amount, self.installs)

    @property
    def ltv(self) -> Decimal | None:
        return ratio(self.cohort_revenue.amount, self.installs)


def revenue(*, period: Period, currency: str) -> RevenueReport:
    """Revenue of the range's events; lifetime value of the range's installs to date, and
    per paid source its return on the spend of the range (cohort ROAS)."""
    revenue_rows = list(counted(period.rows(DailyRevenueStat))
                        .values_list("day", "currency")
                        .annotate(net=Sum("revenue"), refunds=Sum("refunds"),
                                  events=Sum("revenue_events")).order_by())
    cohort_rows = list(counted(period.rows(CohortRevenueStat, "install_day"))
                       .values_list("day", "currency", "source_type", "media_source")
                       .annotate(amount=Sum("revenue")).order_by())
    apart_rows = list(period.rows(DailyRevenueStat)
                      .filter(source_type__in=counting.NOT_COUNTED)
                      .values_list("day", "currency", "source_type")
                      .annotate(net=Sum("revenue")).order_by())
    cost = period.costs()
    book = rate_book(target=currency,
                     currencies=[r[1] for r in revenue_rows + cohort_rows + apart_rows]
                     + [f.currency for f in cost],
                     through=max([period.end, *(r[0] for r in cohort_rows)]))
    apart = {status: Money() for status in counting.NOT_COUNTED}
    for day, row_currency, status, net in apart_rows:
        apart[status].add(book, net, row_currency, day)
    total, gross, refunds = Money(), Money(), Money()
    events = 0
    for day, row_currency, net, refunded, count in revenue_rows:
        total.add(book, net, row_currency, day)
        gross.add(book, net - refunded, row_currency, day)
        refunds.add(book, refunded, row_currency, day)
        events += count
    by_source: dict[tuple[str, str], SourceValue] = {}

    def source(source_type: str, media_source: str) -> SourceValue:
        key = (source_type, media_source)
        if key not in by_source:
            by_source[key] = SourceValue(
                media_source=media_source if source_type == SourceType.PAID else "organic",
                source_type=source_type)
        return by_source[key]

    for source_type, media_source, n in (counted(period.rows(DailyInstallStat))
                                         .values_list("source_type", "media_source")
                                         .annotate(n=Sum("installs")).order_by()):
        source(source_type, media_source).installs += n
    for day, row_currency, source_type, media_source, amount in cohort_rows:
        source(source_type, media_source).cohort_revenue.add(book, amount, row_currency, day)
    for figure in cost:
        source(SourceType.PAID, figure.media_source).cost.add(book, figure.spend,
                                                               figure.currency, figure.day)
    cohort_total = Money()
    for value in by_source.values():
        cohort_total.merge(value.cohort_revenue)
    ordered = sorted(by_source.values(), key=lambda s: (
        s.source_type != SourceType.PAID, -s.installs, s.media_source or ""))
    return RevenueReport(total_revenue=total, gross_revenue=gross, refunds=refunds,
                         revenue_events=events, installs=sum(s.installs for s in ordered),
                         cohort_revenue=cohort_total, by_source=ordered,
                         blocked_revenue=apart[SourceType.BLOCKED],
                         post_attribution_revenue=apart[SourceType.POST_ATTRIBUTION])


# --- Attribution models -----------------------------------------------------------------------

@dataclass
class Credited:
    media_source: str
    campaign_id: str
    credited_installs: Decimal = Decimal(0)
    credited_revenue: Money = field(default_factory=Money)


@dataclass(frozen=True)
class AttributionReport:
    model: str
    half_life_hours: int | None
    window_days: int
    attributed_installs: int
    organic_installs: int
    rows: list[Credited]
    credited_installs: Decimal
    credited_revenue: Money


def attribution(*, period: Period, currency: str, model: str) -> AttributionReport:
    """Installs of the range and revenue of the range's events, shared among touchpoints."""
    column = MODEL_COLUMNS[model]
    rows: dict[tuple[str, str], Credited] = {}

    def row(media_source: str, campaign_id: str) -> Credited:
        return rows.setdefault((media_source, campaign_id),
                               Credited(media_source=media_source, campaign_id=campaign_id))

    for media_source, campaign_id, credit in (period.rows(DailyCreditStat)
                                              .values_list("media_source", "campaign_id")
                                              .annotate(credit=Sum(column)).order_by()):
        row(media_source, campaign_id).credited_installs += credit
    revenue_rows = list(period.rows(DailyCreditedRevenueStat)
                        .values_list("day", "currency", "media_source", "campaign_id")
                        .annotate(amount=Sum(column)).order_by())
    book = rate_book(target=currency, currencies=[r[1] for r in revenue_rows],
                     through=period.end)
    for day, row_currency, media_source, campaign_id, amount in revenue_rows:
        row(media_source, campaign_id).credited_revenue.add(book, amount, row_currency, day)
    # A touchpoint that earns nothing under this model (first-touch, last-touch) is not a row.
    kept = [r for r in rows.values()
            if r.credited_installs or r.credited_revenue.amount or r.credited_revenue.unconverted]
    kept.sort(key=lambda r: (-r.credited_installs, r.media_source, r.campaign_id))
    installs = dict(period.rows(DailyInstallStat).values_list("source_type")
                    .annotate(n=Sum("installs")).order_by())
    total_revenue = Money()
    for credited in kept:
        total_revenue.merge(credited.credited_revenue)
    return AttributionReport(
        model=model,
        half_life_hours=(settings.ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS
                         if model == "time-decay" else None),
        window_days=TOUCHPOINT_WINDOW.days,
        attributed_installs=installs.get(SourceType.PAID, 0),
        organic_installs=installs.get(SourceType.ORGANIC, 0),
        rows=kept,
        credited_installs=sum((r.credited_installs for r in kept), Decimal(0)),
        credited_revenue=total_revenue,
    )
