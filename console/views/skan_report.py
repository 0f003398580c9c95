"""The SKAdNetwork report page of an iOS app (docs/console.md, "SKAdNetwork pages"): the
figures of `GET /api/v1/analytics/skan`, read through the selector that endpoint calls
(`conversion.selectors.skan_rows`) for the range chooser's range, summed per network and source
identifier and per window with `conversion.report.skan_summed`, and the endpoint's own rows by
day. Postbacks are read live, not through the rollups, so "data through" is the moment the
database read was complete (`replica.complete_through`), as the endpoint says it. Below them,
the postbacks refused in the range that name the app's App Store id: their count and the
latest ones with the reason in words (`skan.selectors.refusals_naming`).
"""

from __future__ import annotations

from attribution_site import replica
from console import tables
from console.views.conversion import IosOnly, window_labels
from console.views.reports import ReportPage
from conversion import report as skan
from conversion import selectors
from skan import selectors as skan_selectors

REFUSALS_SHOWN = 20


class SkanReportPage(ReportPage, IosOnly):
    section = "conversion"
    template = "console/conversion/report.html"
    reads_rollups = False

    def data_through(self):
        return replica.complete_through()

    def report(self, *, period, currency):
        rows = selectors.skan_rows(app_id=period.app_id, start=period.start, end=period.end,
                                   currency=currency)
        total = skan.skan_summed(rows, lambda row: None).get(None, skan.SkanCounts())
        sources = skan.skan_summed(
            rows, lambda row: (row.media_source, row.ad_network_id, row.source_identifier))
        by_source = sorted(sources.items(), key=lambda item: (-item[1].installs, item[0]))
        windows = skan.skan_summed(sorted(rows, key=lambda row: row.window),
                                   lambda row: row.window)
        tiles = [("Installs", tables.count(total.installs)),
                 ("Postbacks", tables.count(total.postbacks)),
                 ("Null values (privacy threshold)", tables.percent(total.null_value_share)),
                 ("Estimated revenue", tables.money(total.estimated_revenue.amount, currency)),
                 ("Redownloads", tables.count(total.redownloads)),
                 ("Postbacks no rule decodes", tables.count(total.undecoded))]
        refusals = skan_selectors.refusals_naming(
            app_store_id=self.app.apple_app_id, start=period.start, end=period.end,
            limit=REFUSALS_SHOWN)
        return {
            "tab": "report", "tiles": tiles, "empty": not rows, "refusals": refusals,
            "sources": [{"name": name, "network": network, "source": source,
                         **self.figures(counts, currency)}
                        for (name, network, source), counts in by_source],
            "windows": [{"label": window_label(window), **self.figures(counts, currency),
                         "coarse": [tables.count(n)
                                    for n in counts.coarse_value_counts.values()]}
                        for window, counts in windows.items()],
            "coarse_names": list(total.coarse_value_counts),
            "fine": [{"value": item["value"], "postbacks": tables.count(item["postbacks"])}
                     for item in windows[0].fine_value_list] if 0 in windows else [],
            "days": [{"date": row.date.isoformat(), "window": window_label(row.window),
                      "name": row.media_source, "source": row.source_identifier,
                      **self.figures(row, currency)} for row in rows],
            "unconverted": tables.unconverted_by_currency(
                [("Estimated revenue", total.estimated_revenue.unconverted_list)]),
        }

    def figures(self, counts: skan.SkanCounts, currency: str) -> dict:
        return {"installs": tables.count(counts.installs),
                "postbacks": tables.count(counts.postbacks),
                "null_share": tables.percent(counts.null_value_share),
                "null_values": tables.count(counts.null_values),
                "revenue": tables.money(counts.estimated_revenue.amount, currency),
                "redownloads": tables.count(counts.redownloads),
                "undecoded": tables.count(counts.undecoded)}


def window_label(window: int) -> str:
    labels = window_labels()
    return labels[window] if 0 <= window < len(labels) else f"Window {window}"
