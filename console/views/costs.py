"""Cost upload (docs/console.md, "Cost upload: preview, then all or nothing"): a cost CSV in the
columns `manage.py import_costs` reads is checked first and shown as a preview, each row with its
errors beside it; nothing is stored until the user applies it, and then only if every row is valid
(all or nothing, like POST /api/v1/costs). Rows are read and checked by `analytics.cost_csv`, the
command's own reader, with the API's `CostRowInput` and its row limit; they are written by
`services.costs_import`.

The preview form carries the file's text in a hidden field and "Apply" checks that text again
on the server: what is stored is what the server checked, never something the browser parsed.
After an import the page shows the campaigns of the uploaded days with their cost, CPI and ROAS
(`analytics.queries.campaigns`, read as the API's campaigns report reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from analytics import cost_csv, queries, reading, services
from analytics.serializers import MAX_COST_ROWS
from attribution_site.capabilities import EDIT_MARKETING, READ
from console import uploads
from console.pages import AppPage
from console.period import range_from_query

MAX_UPLOAD_BYTES = uploads.MAX_UPLOAD_BYTES
PREVIEW_ROWS = uploads.PREVIEW_ROWS
CAMPAIGN_ROWS = 100
EXAMPLE = ("date,media_source,campaign_id,cost,currency\n"
           "2025-03-01,facebook,summer_sale,120.50,USD\n"
           "2025-03-01,google,brand_search,80,EUR\n"
           "2025-03-02,tiktok,,35.25,USD\n")
TOO_LARGE = (f"The file is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB. Split it (at most "
             f"{MAX_COST_ROWS:,} rows a file) and upload each part.")


@dataclass(frozen=True)
class Preview(uploads.UploadPreview):
    """A checked cost upload, with the summary shown above its lines."""

    @property
    def days(self) -> tuple[date, date] | None:
        days = [row.day for row in self.checked.rows] if self.checked else []
        return (min(days), max(days)) if days else None

    @property
    def totals(self) -> list[tuple[str, object]]:
        """The file's cost per currency, so a misplaced decimal point shows before applying."""
        sums: dict[str, object] = {}
        for row in self.checked.rows if self.checked else []:
            sums[row.currency] = sums.get(row.currency, 0) + row.cost
        return sorted(sums.items())


def check(text: str) -> Preview:
    return uploads.checked_upload(
        Preview, text, lambda handle: cost_csv.cost_file_read(handle, max_rows=MAX_COST_ROWS))


def _range_of(days: tuple[date, date]) -> dict[str, str]:
    """The uploaded days as a custom range the reports accept (their last allowed stretch)."""
    start, end = days
    longest = settings.ANALYTICS_MAX_RANGE_DAYS
    start = max(start, end - timedelta(days=longest - 1))
    return {"range": "custom", "start": start.isoformat(), "end": end.isoformat()}


class CostsPage(AppPage):
    """GET: the upload form, the columns, and cost by campaign over a range. POST: the preview."""

    capability = {"GET": READ, "POST": EDIT_MARKETING}

    section = "costs"

    def get(self, request, app_id):
        chosen = range_from_query(request.GET, today=timezone.now().date())
        period, currency = reading.period_for_read(app_id=self.app.id, start=chosen.start,
                                                   end=chosen.end)
        campaigns = queries.campaigns(period=period, currency=currency)
        return render(request, "console/costs/upload.html", self.context(
            chosen=chosen, currency=currency, campaigns=campaigns[:CAMPAIGN_ROWS],
            more_campaigns=max(len(campaigns) - CAMPAIGN_ROWS, 0),
            imported="imported" in request.GET, **self.limits()))

    def post(self, request, app_id):
        text, problem = uploads.submitted_text(request, max_bytes=MAX_UPLOAD_BYTES,
                                               too_large=TOO_LARGE)
        if problem is not None:
            return render(request, "console/costs/upload.html", self.context(
                upload_errors=[problem], text=request.POST.get("text", "")[:MAX_UPLOAD_BYTES],
                **self.limits()), status=400)
        return self.preview(check(text))

    def preview(self, preview: Preview):
        return render(self.request, "console/costs/preview.html", self.context(
            preview=preview, **self.limits()), status=200 if preview.valid else 400)

    @staticmethod
    def limits() -> dict:
        return {"columns": cost_csv.COLUMNS, "example": EXAMPLE, "max_rows": MAX_COST_ROWS,
                "max_megabytes": MAX_UPLOAD_BYTES // 1_000_000, "preview_rows": PREVIEW_ROWS}


def shadowed_message(keys) -> str:
    """Which uploaded rows a network's pulled spend outranks (analytics.costs.precedence)."""
    shown = ", ".join(f"{day} {source} {campaign or '(no campaign)'}"
                      for day, source, campaign in keys[:5])
    more = f" and {len(keys) - 5:,} more" if len(keys) > 5 else ""
    noun = "row is" if len(keys) == 1 else "rows are"
    return (f"{len(keys):,} uploaded {noun} shadowed by spend pulled from the network and not "
            f"counted: {shown}{more}.")


class CostApplyPage(CostsPage):
    capability = EDIT_MARKETING

    def get(self, request, app_id):
        return redirect("console:costs", app_id=self.app.id)

    def post(self, request, app_id):
        text = request.POST.get("text", "")
        if len(text.encode()) > MAX_UPLOAD_BYTES:
            return self.preview(Preview(text="", problem=TOO_LARGE))
        preview = check(text)
        if not preview.valid:
            return self.preview(preview)
        outcome = services.costs_import(app_id=self.app.id, rows=preview.checked.rows)
        rows = "1 cost row" if outcome.rows == 1 else f"{outcome.rows:,} cost rows"
        messages.success(request, f"Imported {rows}: {outcome.created:,} new, "
                                  f"{outcome.updated:,} replaced.")
        if outcome.shadowed:
            messages.warning(request, shadowed_message(outcome.shadowed))
        query = {**_range_of(preview.days), "imported": "1"}
        return redirect(f"{reverse('console:costs', args=[self.app.id])}?{urlencode(query)}")
