"""The fraud page of an app (docs/fraud.md, "The fraud report"; docs/console.md, "Report
pages"): the figures of GET /api/v1/analytics/fraud for the range, read by the same query
(analytics.fraud_report), with the click-to-install time histogram drawn by the console's chart
library and printed as a table beside it."""

from __future__ import annotations

from analytics import fraud_report
from console import tables
from console.views.reports import ReportPage
from fraud import selectors as fraud_selectors
from fraud import verdict
from fraud.flood import BUCKETS
from fraud.words import REASON_NAMES, SIGNATURE_WORDS

STATUS_LABELS = {"flagged": "Flagged", "blocked": "Blocked",
                 "post_attribution": "Post-attribution"}


class FraudPage(ReportPage):
    section = "fraud"
    template = "console/reports/fraud.html"
    reads_rollups = False  # install rows: a status changes after the fact

    def data_through(self):
        return None  # raw rows: everything recorded up to the request

    def report(self, *, period, currency):
        report = fraud_report.fraud(period=period)
        totals = report.totals
        refused = sum(report.refused_requests.values())
        tiles = [("Installs", tables.count(totals.total_installs)),
                 ("Blocked installs", tables.count(totals.installs["blocked"])),
                 ("Flagged installs", tables.count(totals.installs["flagged"])),
                 ("Post-attribution installs", tables.count(totals.installs["post_attribution"])),
                 ("Blocked clicks", tables.count(totals.blocked_clicks)),
                 ("Events of blocked installs", tables.count(totals.blocked_events)),
                 ("Requests refused for their signature", tables.count(refused))]
        chart = {"labels": [bucket.label for bucket in BUCKETS],
                 "installs": list(totals.histogram)}
        return {
            "tiles": tiles, "chart": chart,
            "buckets": list(zip((b.label for b in BUCKETS), totals.histogram, strict=True)),
            "sources": [_row(row) for row in report.sources],
            "campaigns": [_row(row) for row in report.campaigns],
            "flags": [{"source": f.media_source, "day": f.day.isoformat(), "mode": f.mode,
                       "why": f.stats.get("explanation", "")} for f in report.flags],
            "refused": [(SIGNATURE_WORDS.get(reason, reason), tables.count(n))
                        for reason, n in sorted(report.refused_requests.items())],
            "signing_enforced": fraud_selectors.settings_of(self.app.id).signing_mode
            == verdict.SIGNING_ENFORCE,
            "reasons": _by_reason(totals),
            "clicks_out": _clicks_by_reason(totals),
            "empty": not (totals.total_installs or refused or report.flags)}


def _by_reason(totals) -> list[dict]:
    """The installs of each reason code by status (an install with two reasons counts under
    each), in the order the rules are listed."""
    found = {reason for _, reason in totals.by_reason}
    order = [r for r in verdict.REASONS if r in found] + sorted(found - set(verdict.REASONS))
    return [{"name": REASON_NAMES.get(reason, reason).capitalize(), "code": reason,
             **{status: tables.count(totals.by_reason[(status, reason)])
                for status in STATUS_LABELS}} for reason in order]


def _clicks_by_reason(totals) -> list[dict]:
    """Clicks kept out of attribution or counted, by rule and mode: a flooding source's
    clicks after its block, and bots' clicks (blocked: never recorded; flagged: recorded)."""
    return [{"name": REASON_NAMES.get(reason, reason).capitalize(), "code": reason,
             "mode": "blocked" if mode == verdict.BLOCK else "flagged (recorded)",
             "clicks": tables.count(n)}
            for (reason, mode), n in sorted(totals.clicks_by_reason.items()) if n]


def _row(row) -> dict:
    return {"source": row.media_source or "(organic)", "campaign": row.campaign_id,
            "installs": tables.count(row.total_installs),
            "blocked": tables.count(row.installs["blocked"]),
            "flagged": tables.count(row.installs["flagged"]),
            "post_attribution": tables.count(row.installs["post_attribution"]),
            "blocked_clicks": tables.count(row.blocked_clicks),
            "blocked_events": tables.count(row.blocked_events),
            "reasons": [f"{reason} ({STATUS_LABELS.get(status, status).lower()}): {n}"
                        for (status, reason), n in sorted(row.by_reason.items())],
            "histogram": [tables.count(n) for n in row.histogram]}
