"""The report pages of an app (docs/console.md, "Report pages"): overview, sources, campaigns,
cohorts, revenue and the CSV exports. Each reads the same analytics query the matching API endpoint
calls, through analytics.reading (refresh on read, report currency) for the range the query string
names, and prints the figures with console.tables. Every page says up to when its figures are
complete (`data_through`), so a lag is not mistaken for a loss.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from urllib.parse import parse_qsl, urlencode

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from analytics import exports, queries, reading, rollups
from analytics.models import SourceType
from analytics.serializers import EXPORT_TYPES
from analytics.touch_credit import DEFAULT_MODEL, MODELS
from attribution_site.capabilities import READ
from attribution_site.replica import ReportReads
from console import tables
from console.pages import AppPage
from console.period import range_from_query
from console.tables import Column

MODEL_LABELS = {"last-touch": "Last touch", "first-touch": "First touch", "linear": "Linear",
                "time-decay": "Time decay"}
EXPORT_LABELS = {"installs": "Installs", "events": "Events", "revenue": "Revenue events",
                 "blocked_installs": "Blocked installs"}
NOT_YET = "not yet"
# Under the figures counted apart (analytics.counting; docs/metrics.md, "What counts").
NOT_COUNTED = "Not in installs or revenue."
NOT_IN_REVENUE = "Not in revenue."


class ReportPage(ReportReads, AppPage, ABC):
    """A page over one date range: parses the range, reads (where reports read: the replica
    when there is one), renders with the range chooser."""

    capability = READ

    template = ""
    reads_rollups = True

    def get(self, request, app_id):
        self.range = range_from_query(request.GET, today=timezone.now().date())
        period, currency = reading.period_for_read(
            app_id=self.app.id, start=self.range.start, end=self.range.end,
            reads_rollups=self.reads_rollups)
        data_through = self.data_through()
        report = self.report(period=period, currency=currency)
        return render(request, self.template, self.context(
            range=self.range, currency=currency, keep=self.keep(), presets=self.preset_links(),
            typed=self.typed(), data_through=data_through, **report))

    def data_through(self):
        """Up to when the figures are complete, read before them (analytics/reading.py): they
        then hold at least this much."""
        return rollups.data_through(app_id=self.app.id)

    def typed(self) -> dict[str, str]:
        """The custom form's dates: what was typed when it was refused, else the range's."""
        if self.range.errors:
            return {"start": self.request.GET.get("start", ""),
                    "end": self.request.GET.get("end", "")}
        return {"start": self.range.start.isoformat(), "end": self.range.end.isoformat()}

    def preset_links(self) -> list[dict]:
        return [{"label": label, "current": key == self.range.preset,
                 "href": "?" + urlencode({"range": key, **self.keep()})}
                for key, label in self.range.presets]

    def keep(self) -> dict[str, str]:
        """Query parameters other than the range that the range chooser must not drop."""
        return {}

    @abstractmethod
    def report(self, *, period: queries.Period, currency: str) -> dict:
        """The page's figures, ready to print, as template context."""


class OverviewPage(ReportPage):
    section = "overview"
    template = "console/reports/overview.html"

    def report(self, *, period, currency):
        board = queries.dashboard(period=period, currency=currency)
        days = [{"date": day.date.isoformat(), "paid": day.paid_installs,
                 "organic": day.organic_installs, "installs": day.installs,
                 "revenue": tables.amount(day.revenue.amount)} for day in board.series]
        chart = {"labels": [day.date.isoformat() for day in board.series],
                 "paid": [day.paid_installs for day in board.series],
                 "organic": [day.organic_installs for day in board.series],
                 "revenue": [float(day.revenue.amount.quantize(tables.CENTS))
                             for day in board.series],
                 "currency": currency}
        coverage = cost_coverage_note(board.covered.installs, board.paid_installs)
        cost = board.total_cost.amount if board.total_cost.known else None
        tiles = [("Installs", tables.count(board.total_installs), ""),
                 ("Paid installs", tables.count(board.paid_installs), ""),
                 ("Organic installs", tables.count(board.organic_installs), ""),
                 ("Clicks", tables.count(board.total_clicks), ""),
                 ("Conversion rate", tables.percent(board.conversion_rate), ""),
                 ("Revenue", tables.money(board.total_revenue.amount, currency), ""),
                 ("Cost", tables.money(cost, currency), ""),
                 ("Average CPI", tables.money(board.average_cpi, currency), coverage),
                 ("ROAS", tables.percent(board.covered.roas), coverage),
                 ("Blocked installs", tables.count(board.blocked_installs), NOT_COUNTED),
                 ("Post-attribution installs", tables.count(board.post_attribution_installs),
                  NOT_COUNTED)]
        empty = not (board.total_installs or board.total_clicks or board.total_revenue.known
                     or board.total_revenue.unconverted or board.blocked_installs
                     or board.post_attribution_installs)
        return {"tiles": tiles, "days": days, "chart": chart, "empty": empty,
                "unconverted": tables.unconverted_by_currency([
                    ("Revenue", board.total_revenue.unconverted_list),
                    ("Cost", board.total_cost.unconverted_list)])}


class PerformancePage(ReportPage):
    """Sources or campaigns: one table, sortable by any column, under a chosen model."""

    template = "console/reports/performance.html"
    by_campaign = False

    def columns(self) -> list[Column]:
        named = [Column("source", "Media source", numeric=False,
                        value=lambda r: r.media_source)]
        if self.by_campaign:
            named.append(Column("campaign", "Campaign", numeric=False,
                                value=lambda r: r.campaign_id))
        return named + [
            Column("installs", "Installs", value=lambda r: r.installs),
            Column("clicks", "Clicks", value=lambda r: r.clicks),
            Column("conversion_rate", "Conversion rate", value=lambda r: r.conversion_rate),
            Column("cost", "Cost", value=lambda r: r.cost.amount if r.cost.known else None),
            Column("cpi", "CPI", value=lambda r: r.cpi),
            Column("revenue", "Revenue", value=lambda r: r.revenue.amount),
            Column("roas", "ROAS", value=lambda r: r.roas),
        ]

    def model(self) -> str:
        chosen = self.request.GET.get("model", DEFAULT_MODEL)
        return chosen if chosen in MODELS else DEFAULT_MODEL

    def keep(self):
        keep = {"model": self.model()}
        for name in ("sort", "dir"):
            if self.request.GET.get(name):
                keep[name] = self.request.GET[name]
        return keep

    def report(self, *, period, currency):
        model = self.model()
        columns = self.columns()
        sort = tables.sort_from_query(self.request.GET, columns)
        rows = tables.sorted_rows(
            reading.performance(period=period, currency=currency, by_campaign=self.by_campaign,
                                model=model), columns, sort)
        models = [{"key": key, "label": MODEL_LABELS[key], "current": key == model,
                   "href": "?" + _query(self.range.query, {**self.keep(), "model": key})}
                  for key in MODELS]
        return {"headers": tables.headers(columns, sort, _pairs(self.range.query, model)),
                "rows": [self.cells(row, currency) for row in rows], "models": models,
                "model": model, "model_label": MODEL_LABELS[model],
                "by_campaign": self.by_campaign,
                "unconverted": tables.unconverted_by_currency(
                    [part for row in rows
                     for part in _unconverted_parts(self.cells_name(row), row)])}

    def cells_name(self, row) -> str:
        name = source_name(row)
        return f"{name} / {row.campaign_id}" if self.by_campaign else name

    def cells(self, row, currency: str) -> dict:
        names = [source_name(row)] + ([_campaign_label(row)] if self.by_campaign else [])
        figures = [tables.count(row.installs), tables.count(row.clicks),
                   tables.percent(row.conversion_rate),
                   tables.money(row.cost.amount if row.cost.known else None, currency),
                   tables.money(row.cpi, currency), tables.money(row.revenue.amount, currency),
                   tables.percent(row.roas)]
        return {"names": names, "figures": figures, "type": row.source_type}


def _campaign_label(row) -> str:
    """'Summer sale (654321)' when the platform named the campaign, else its id."""
    if not row.campaign_id:
        return "(no campaign)"
    return f"{row.campaign_name} ({row.campaign_id})" if row.campaign_name else row.campaign_id


class SourcesPage(PerformancePage):
    section = "sources"


class CampaignsPage(PerformancePage):
    section = "campaigns"
    by_campaign = True


class CohortsPage(ReportPage):
    section = "cohorts"
    template = "console/reports/cohorts.html"

    def report(self, *, period, currency):
        retention = queries.retention(period=period, today=timezone.now().date())
        rows = [{"date": cohort.date.isoformat(), "installs": tables.count(cohort.installs),
                 "cells": [heat_cell(cohort.retained[n], cohort.rate(n))
                           for n in queries.RETENTION_DAYS]}
                for cohort in retention.cohorts]
        pooled = [heat_cell(retention.pooled[n][1] or None, retention.rate(n))
                  for n in queries.RETENTION_DAYS]
        return {"days": [f"D{n}" for n in queries.RETENTION_DAYS], "rows": rows,
                "summary": {"installs": tables.count(retention.installs), "cells": pooled}}


class RevenuePage(ReportPage):
    section = "revenue"
    template = "console/reports/revenue.html"

    def report(self, *, period, currency):
        report = queries.revenue(period=period, currency=currency)
        tiles = [("Revenue", tables.money(report.total_revenue.amount, currency), ""),
                 ("Gross revenue", tables.money(report.gross_revenue.amount, currency), ""),
                 ("Refunds", tables.money(report.refunds.amount, currency), ""),
                 ("Revenue events", tables.count(report.revenue_events), ""),
                 ("Installs", tables.count(report.installs), ""),
                 ("ARPU", tables.money(report.arpu, currency), ""),
                 ("Lifetime revenue of these installs",
                  tables.money(report.cohort_revenue.amount, currency), ""),
                 ("LTV", tables.money(report.ltv, currency), ""),
                 ("Revenue of blocked installs",
                  tables.money(report.blocked_revenue.amount, currency), NOT_IN_REVENUE),
                 ("Revenue of post-attribution installs",
                  tables.money(report.post_attribution_revenue.amount, currency),
                  NOT_IN_REVENUE)]
        sources = [{"name": source_name(s), "installs": tables.count(s.installs),
                    "revenue": tables.money(s.cohort_revenue.amount, currency),
                    "ltv": tables.money(s.ltv, currency),
                    "cost": tables.money(s.cost.amount if s.cost.known else None, currency),
                    "roas": tables.percent(s.roas),
                    "unconverted": _amounts(s.cohort_revenue.unconverted_list
                                            + s.cost.unconverted_list)}
                   for s in report.by_source]
        return {"tiles": tiles, "sources": sources,
                "unconverted": tables.unconverted_by_currency([
                    ("Revenue of the range", report.total_revenue.unconverted_list),
                    ("Lifetime revenue of these installs",
                     report.cohort_revenue.unconverted_list),
                    ("Revenue of blocked installs", report.blocked_revenue.unconverted_list),
                    ("Revenue of post-attribution installs",
                     report.post_attribution_revenue.unconverted_list)])}


class ExportsPage(ReportPage):
    section = "exports"
    template = "console/reports/exports.html"
    reads_rollups = False  # the files are raw rows, straight from tracking's tables

    def report(self, *, period, currency):
        links = [{"label": EXPORT_LABELS[kind], "kind": kind,
                  "href": reverse("console:export-download", args=[self.app.id, kind])
                  + "?" + self.range.query} for kind in EXPORT_TYPES]
        return {"links": links}


class ExportDownload(ReportReads, AppPage):
    """The streamed CSV of the API's export, under the session instead of a token."""

    capability = READ

    def get(self, request, app_id, kind):
        if kind not in EXPORT_TYPES:
            raise Http404("No such export.")
        chosen = range_from_query(request.GET, today=timezone.now().date())
        if chosen.errors:  # the exports page says what is wrong with the range
            return redirect(reverse("console:exports", args=[self.app.id]) + "?"
                            + request.GET.urlencode())
        period, currency = reading.period_for_read(app_id=self.app.id, start=chosen.start,
                                                   end=chosen.end, reads_rollups=False)
        return exports.csv_response(period=period, kind=kind, currency=currency,
                                    app_name=self.app.name)


def cost_coverage_note(covered: int, paid: int) -> str:
    """Said under CPI and ROAS when they leave paid installs out (no cost imported for their
    campaign, or cost in a currency without a rate)."""
    if covered == paid:
        return ""
    return (f"Covers {covered:,} of {paid:,} paid installs: the rest have no cost in "
            f"the report currency.")


def source_name(row) -> str:
    if row.source_type == SourceType.NO_INSTALL:
        return "(revenue of no install)"
    return row.media_source


def heat_cell(retained: int | None, rate) -> dict:
    """A cohort's Dn: its text, and a colour class in tenths that repeats what the text says."""
    if retained is None:
        return {"text": NOT_YET, "css": "heat-none"}
    if rate is None:
        return {"text": tables.DASH, "css": "heat-none"}
    bucket = min(10, max(0, int(rate // 10)))
    return {"text": tables.percent(rate), "css": f"heat-{bucket}"}


def _amounts(items: list[dict]) -> list[str]:
    return [f"{tables.amount(item['amount'])} {item['currency']}" for item in items]


def _unconverted_parts(name: str, row) -> list[tuple[str, list[dict]]]:
    return [(f"{name} revenue", row.revenue.unconverted_list),
            (f"{name} cost", row.cost.unconverted_list)]


def _pairs(range_query: str, model: str) -> dict[str, str]:
    return {**dict(parse_qsl(range_query)), "model": model}


def _query(range_query: str, extra: dict[str, str]) -> str:
    return "&".join(part for part in (range_query, urlencode(extra)) if part)
