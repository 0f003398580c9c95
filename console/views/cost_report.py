"""The Cost page (docs/console.md, "Cost page"): the spend that counts (pulled over uploaded
over none) beside the installs and revenue it bought, grouped as chosen, with spend and revenue
by day as a chart. Reads `analytics.cost_report`, as `GET /api/v1/analytics/cost` does.
"""

from __future__ import annotations

from urllib.parse import urlencode

from analytics import cost_report
from console import tables
from console.views.reports import ReportPage

GROUP_LABELS = {"media_source": "Media source", "campaign": "Campaign", "adset": "Ad set",
                "ad": "Ad", "day": "Day"}
SOURCE_WORDS = {"pull": "Pulled", "csv": "Uploaded", "mixed": "Pulled and uploaded",
                None: tables.DASH}


class CostPage(ReportPage):
    section = "cost"
    template = "console/reports/cost.html"

    def group_by(self) -> str:
        chosen = self.request.GET.get("group_by", "campaign")
        return chosen if chosen in cost_report.GROUPINGS else "campaign"

    def keep(self):
        return {"group_by": self.group_by()}

    def report(self, *, period, currency):
        group_by = self.group_by()
        report = cost_report.cost_report(period=period, currency=currency, group_by=group_by)
        by_day = (report if group_by == "day" else
                  cost_report.cost_report(period=period, currency=currency, group_by="day"))
        lines = {line.day: line for line in by_day.rows}
        chart = {"labels": [day.isoformat() for day in period.days], "currency": currency,
                 "spend": [_float(lines[d].spend.amount if d in lines else None)
                           for d in period.days],
                 "revenue": [_float(lines[d].revenue.amount if d in lines and lines[d].revenue
                                    else None) for d in period.days]}
        choices = [{"label": label, "current": key == group_by,
                    "href": "?" + _query(self.range.query, {"group_by": key})}
                   for key, label in GROUP_LABELS.items()]
        names = _names(group_by)
        return {"group_by": group_by, "choices": choices, "names": [n for n, _ in names],
                "rows": [self.cells(line, currency, names) for line in report.rows],
                "total": self.cells(report.total, currency, []),
                "campaign_level": group_by not in cost_report.BY_AD,
                "skan": report.skan_unmatched_installs is not None,
                "skan_unmatched": tables.count(report.skan_unmatched_installs),
                "chart": chart, "has_spend": any(chart["spend"]),
                "unconverted": tables.unconverted_by_currency(
                    [("Spend", report.total.spend.unconverted_list)]
                    + ([("Revenue", report.total.revenue.unconverted_list)]
                       if report.total.revenue else []))}

    @staticmethod
    def cells(line, currency: str, names) -> dict:
        spend = line.spend.amount if line.spend.known else None
        skan = [tables.count(line.skan_installs), tables.money(line.skan_cpi, currency),
                tables.money(line.skan_revenue.amount if line.skan_revenue else None, currency),
                tables.percent(line.skan_roas)]
        return {"names": [_label(getattr(line, attr)) for _, attr in names], "skan": skan,
                "no_installs": line.installs == 0 and line.spend.known,
                "figures": [tables.money(spend, currency), tables.count(line.impressions),
                            tables.count(line.clicks), tables.count(line.installs),
                            tables.money(line.cpi, currency),
                            tables.money(line.revenue.amount if line.revenue else None,
                                         currency),
                            tables.percent(line.roas)],
                "source": SOURCE_WORDS[line.cost_source]}


def _names(group_by: str) -> list[tuple[str, str]]:
    return {"media_source": [("Media source", "media_source")],
            "campaign": [("Media source", "media_source"), ("Campaign", "campaign_id")],
            "adset": [("Media source", "media_source"), ("Campaign", "campaign_id"),
                      ("Ad set", "adset_id")],
            "ad": [("Media source", "media_source"), ("Campaign", "campaign_id"),
                   ("Ad set", "adset_id"), ("Ad", "ad_id")],
            "day": [("Day", "day")]}[group_by]


def _label(value) -> str:
    if value is None:
        return ""
    if value == "":
        return "(none)"
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _float(value):
    return None if value is None else float(value.quantize(tables.CENTS))


def _query(range_query: str, extra: dict[str, str]) -> str:
    return "&".join(part for part in (range_query, urlencode(extra)) if part)
