"""`manage.py load_currency_rates <file.csv>`: load the rates analytics converts money with
(docs/analytics.md, "Currencies"). Columns: date (YYYY-MM-DD), currency (ISO 4217),
units_per_usd (how many units of the currency one US dollar bought that day).

A rate applies from its date until the next rate of that currency; days before a currency's
first rate use that first rate. USD is the pivot and is always 1, so it takes no rows. The whole
file is checked first; any error and nothing is loaded. A row for an existing (currency, date)
replaces it.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from analytics import csv_input, services
from tracking.currencies import currency_code

MAX_ERRORS_SHOWN = 20


def _rate_row(values: dict[str, str]) -> tuple[services.RateRow | None, list[str]]:
    errors = []
    try:
        if len(values["date"]) != 10:
            raise ValueError(values["date"])
        day = date.fromisoformat(values["date"])
    except ValueError:
        errors.append("date: must be a date as YYYY-MM-DD")
    currency = currency_code(values["currency"])
    if currency is None:
        errors.append("currency: must be an ISO 4217 code such as EUR")
    elif currency == "USD":
        errors.append("currency: USD is the pivot (always 1) and takes no rate")
    try:
        rate = Decimal(values["units_per_usd"])
        if not rate.is_finite() or rate <= 0 or rate.as_tuple().exponent < -10 \
                or rate >= Decimal("1e14"):
            raise InvalidOperation
    except InvalidOperation:
        errors.append("units_per_usd: must be a positive number with at most 10 decimals")
    if errors:
        return None, errors
    return services.RateRow(day=day, currency=currency, units_per_usd=rate), []


class Command(BaseCommand):
    help = "Load currency rates (date,currency,units_per_usd) used to convert revenue and cost."

    def add_arguments(self, parser):
        parser.add_argument("path", help="CSV file, or - for standard input")

    def handle(self, *, path: str, **options):
        parsed: dict[tuple[str, date], services.RateRow] = {}
        first_line: dict[tuple[str, date], int] = {}
        errors: list[str] = []
        try:
            with csv_input.opened(path) as handle:
                for line, values in csv_input.rows(
                        handle, required={"date", "currency", "units_per_usd"}, optional=set()):
                    row, problems = _rate_row(values)
                    errors.extend(f"line {line}: {problem}" for problem in problems)
                    if row is None:
                        continue
                    key = (row.currency, row.day)
                    if key in parsed:
                        errors.append(f"line {line}: repeats {row.currency} on {row.day} "
                                      f"(line {first_line[key]})")
                    parsed[key] = row
                    first_line.setdefault(key, line)
        except csv_input.CsvProblem as exc:
            raise CommandError(str(exc)) from None
        if errors:
            shown = errors[:MAX_ERRORS_SHOWN]
            more = len(errors) - len(shown)
            raise CommandError("\n".join([*shown, *([f"... and {more} more"] if more else []),
                                          "Nothing was loaded."]))
        if not parsed:
            raise CommandError("the file has a header but no rows")
        outcome = services.currency_rates_load(rows=list(parsed.values()))
        self.stdout.write(self.style.SUCCESS(
            f"Loaded {outcome.rows:,} rates: {outcome.created:,} new, "
            f"{outcome.updated:,} replaced."))
