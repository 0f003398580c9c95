"""`manage.py load_currency_rates <file.csv>`: load the rates analytics converts money with
(docs/analytics.md, "Currencies"); the file is read by `analytics.rates_csv`, as the console's
rates page reads it. Columns: date (YYYY-MM-DD), currency (ISO 4217),
units_per_usd (how many units of the currency one US dollar bought that day).

A rate applies from its date until the next rate of that currency; days before a currency's
first rate use that first rate. USD is the pivot and is always 1, so it takes no rows. The whole
file is checked first; any error and nothing is loaded. A row for an existing (currency, date)
replaces it.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from analytics import csv_input, rates_csv, services

MAX_ERRORS_SHOWN = 20


class Command(BaseCommand):
    help = "Load currency rates (date,currency,units_per_usd) used to convert revenue and cost."

    def add_arguments(self, parser):
        parser.add_argument("path", help="CSV file, or - for standard input")

    def handle(self, *, path: str, **options):
        try:
            with csv_input.opened(path) as handle:
                checked = rates_csv.rate_file_read(handle)
        except csv_input.CsvProblem as exc:
            raise CommandError(str(exc)) from None
        errors = checked.messages()
        if errors:
            shown = errors[:MAX_ERRORS_SHOWN]
            more = len(errors) - len(shown)
            raise CommandError("\n".join([*shown, *([f"... and {more} more"] if more else []),
                                          "Nothing was loaded."]))
        outcome = services.currency_rates_load(rows=checked.rows)
        self.stdout.write(self.style.SUCCESS(
            f"Loaded {outcome.rows:,} rates: {outcome.created:,} new, "
            f"{outcome.updated:,} replaced."))
