"""Exchange rates (docs/analytics.md, "Currencies"; docs/console.md, "Exchange rates"): the
instance-wide rates every report converts money with, their latest value per currency and one
currency's history, for everyone logged in; a rates CSV upload (checked and previewed, then
applied all or nothing) and a single-rate form for those `console.rate_editors` allows.

The upload reads the file with `analytics.rates_csv`, the reader of `manage.py
load_currency_rates`, and the form checks its fields with that module's `rate_row`; both write
with `services.currency_rates_load`. Reports convert when they read (rollups keep amounts in
their own currency), so a stored rate shows in every report at once. The page sits under an app
for its navigation and to say whether that app's report currency has a rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.db.models import Count, Min, OuterRef, Subquery
from django.shortcuts import redirect, render
from django.urls import reverse

from analytics import queries, rates_csv, services
from analytics.models import CurrencyRate
from attribution_site.capabilities import EDIT_RATES, READ
from attribution_site.currencies import currency_code
from console import uploads
from console.pages import AppPage
from console.rate_editors import who_may_edit
from console.uploads import MAX_UPLOAD_BYTES, PREVIEW_ROWS

HISTORY_ROWS = 100
EXAMPLE = ("date,currency,units_per_usd\n"
           "2025-03-01,EUR,0.9214\n"
           "2025-03-01,JPY,149.85\n"
           "2025-03-02,EUR,0.9198\n")
TOO_LARGE = (f"The file is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB. Split it and upload "
             f"each part, or load it with manage.py load_currency_rates.")
FORM_FIELDS = ("date", "currency", "units_per_usd")


@dataclass(frozen=True)
class Preview(uploads.UploadPreview):
    """A checked rates upload, with the currencies it holds."""

    @property
    def currencies(self) -> list[str]:
        return sorted({row.currency for row in self.checked.rows}) if self.checked else []


def check(text: str) -> Preview:
    return uploads.checked_upload(Preview, text, rates_csv.rate_file_read)


def latest_rates() -> list[dict]:
    """Each currency's most recent rate, with its day, how many days it has and its first."""
    latest_day = (CurrencyRate.objects.filter(currency=OuterRef("currency"))
                  .order_by("-day").values("day")[:1])
    latest = {rate.currency: rate for rate in
              CurrencyRate.objects.filter(day=Subquery(latest_day))}
    spans = (CurrencyRate.objects.values("currency").order_by("currency")
             .annotate(days=Count("id"), first=Min("day")))
    return [{"currency": span["currency"], "day": latest[span["currency"]].day,
             "units_per_usd": plain(latest[span["currency"]].units_per_usd),
             "days": span["days"], "first": span["first"]} for span in spans]


def history(currency: str) -> list[dict]:
    return [{"day": rate.day, "units_per_usd": plain(rate.units_per_usd),
             "updated_at": rate.updated_at}
            for rate in CurrencyRate.objects.filter(currency=currency).order_by("-day")
            [:HISTORY_ROWS]]


def plain(value: Decimal) -> str:
    """A stored rate as typed: no trailing zeros of the column's 10 decimals, never 1.5E+2."""
    return f"{value.normalize():f}"


class RatesPage(AppPage):
    """GET: the rates (and `?currency=EUR`'s history). POST: an upload's preview."""

    capability = {"GET": READ, "POST": EDIT_RATES}

    section = "rates"

    def get(self, request, app_id):
        return self.page()

    def post(self, request, app_id):
        text, problem = uploads.submitted_text(request, max_bytes=MAX_UPLOAD_BYTES,
                                               too_large=TOO_LARGE)
        if problem is not None:
            return self.page(upload_errors=[problem], status=400,
                             text=request.POST.get("text", "")[:MAX_UPLOAD_BYTES])
        return self.preview(check(text))

    def may(self, capability: str) -> bool:
        # Rates are instance-wide: the operator's setting says who edits them (staff always).
        if capability == EDIT_RATES:
            return self.may_edit_rates
        return super().may(capability)

    def refusal(self, capability: str) -> str:
        if capability == EDIT_RATES:
            return f"Only {self.who()} may change exchange rates."
        return super().refusal(capability)

    def who(self) -> str:
        return who_may_edit(settings.CURRENCY_RATES_EDITORS)

    def page(self, *, status: int = 200, **extra):
        rates = latest_rates()
        chosen = currency_code(self.request.GET.get("currency", ""))
        report_currency = queries.report_currency(app_id=self.app.id)
        known = {rate["currency"] for rate in rates} | {"USD"}
        form = {name: self.request.GET.get(f"edit_{name}", "") for name in FORM_FIELDS}
        return render(self.request, "console/rates/rates.html", self.context(**{
            "rates": rates, "chosen": chosen, "history": history(chosen) if chosen else [],
            "history_rows": HISTORY_ROWS, "report_currency": report_currency,
            "report_currency_known": report_currency in known, "who": self.who(),
            "form": form, "form_errors": {}, "example": EXAMPLE,
            "columns": rates_csv.COLUMNS, "max_megabytes": MAX_UPLOAD_BYTES // 1_000_000,
            **extra}), status=status)

    def preview(self, preview: Preview):
        return render(self.request, "console/rates/preview.html", self.context(
            preview=preview, columns=rates_csv.COLUMNS, preview_rows=PREVIEW_ROWS),
            status=200 if preview.valid else 400)


class RateApplyPage(RatesPage):
    """POST: the previewed text, checked again here, loaded all or nothing."""

    def get(self, request, app_id):
        return redirect("console:rates", app_id=self.app.id)

    def post(self, request, app_id):
        text = request.POST.get("text", "")
        if len(text.encode()) > MAX_UPLOAD_BYTES:
            return self.preview(Preview(text="", problem=TOO_LARGE))
        preview = check(text)
        if not preview.valid:
            return self.preview(preview)
        outcome = services.currency_rates_load(rows=preview.checked.rows)
        rates = "1 rate" if outcome.rows == 1 else f"{outcome.rows:,} rates"
        messages.success(request, f"Loaded {rates}: {outcome.created:,} new, "
                                  f"{outcome.updated:,} replaced.")
        return redirect("console:rates", app_id=self.app.id)


class RateEditPage(RatesPage):
    """POST: one rate (date, currency, units_per_usd), added or replacing that day's."""

    def get(self, request, app_id):
        return redirect("console:rates", app_id=self.app.id)

    def post(self, request, app_id):
        form = {name: request.POST.get(name, "").strip() for name in FORM_FIELDS}
        row, errors = rates_csv.rate_row(form)
        if row is None:
            return self.page(form=form, status=400,
                             form_errors={name: [message] for name, message in errors.items()})
        outcome = services.currency_rates_load(rows=[row])
        done = "Added" if outcome.created else "Replaced"
        messages.success(request, f"{done} the rate of {row.currency} on {row.day}: "
                                  f"1 USD = {row.units_per_usd} {row.currency}.")
        query = urlencode({"currency": row.currency})
        return redirect(f"{reverse('console:rates', args=[self.app.id])}?{query}")
