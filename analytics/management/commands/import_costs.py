"""`manage.py import_costs <app_id> <file.csv>`: load ad cost rows for an app (issue: Cost and
currency). Columns: date (YYYY-MM-DD), media_source, campaign_id (optional), cost, currency.

The same rules as POST /api/v1/costs. The whole file is checked first; if any line is wrong,
the errors are listed with their line numbers and nothing is imported. A row whose (date,
media_source, campaign_id) is already stored replaces it, so re-importing a corrected file
replaces the old figures.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from analytics import csv_input, services
from analytics.management.arguments import existing_app_id
from analytics.serializers import CostRowInput

MAX_ERRORS_SHOWN = 20


class Command(BaseCommand):
    help = "Import ad cost rows (date,media_source,campaign_id,cost,currency) for an app."

    def add_arguments(self, parser):
        parser.add_argument("app_id", help="UUID of the app the costs belong to")
        parser.add_argument("path", help="CSV file, or - for standard input")

    def handle(self, *, app_id: str, path: str, **options):
        app_uuid = existing_app_id(app_id)
        parsed: list[services.CostRow] = []
        lines: list[int] = []
        errors: list[str] = []
        try:
            with csv_input.opened(path) as handle:
                for line, values in csv_input.rows(
                        handle, required={"date", "media_source", "cost", "currency"},
                        optional={"campaign_id"}):
                    row = CostRowInput(data=values)
                    if not row.is_valid():
                        errors.extend(f"line {line}: {field}: {message}"
                                      for field, messages in row.errors.items()
                                      for message in messages)
                        continue
                    data = row.validated_data
                    parsed.append(services.CostRow(
                        day=data["date"], media_source=data["media_source"],
                        campaign_id=data["campaign_id"], cost=data["cost"],
                        currency=data["currency"]))
                    lines.append(line)
        except csv_input.CsvProblem as exc:
            raise CommandError(str(exc)) from None
        errors.extend(f"line {lines[index]}: repeats the date, media_source and campaign_id "
                      f"of line {lines[first]}"
                      for index, first in services.duplicate_keys(parsed))
        if errors:
            shown = errors[:MAX_ERRORS_SHOWN]
            more = len(errors) - len(shown)
            raise CommandError("\n".join([*shown, *([f"... and {more} more"] if more else []),
                                          "Nothing was imported."]))
        if not parsed:
            raise CommandError("the file has a header but no rows")

        def progress(done: int, total: int) -> None:
            self.stdout.write(f"  {done:,}/{total:,} rows ({done * 100 // total}%)")

        self.stdout.write(f"Importing {len(parsed):,} cost rows for app {app_uuid}")
        outcome = services.costs_import(app_id=app_uuid, rows=parsed, progress=progress)
        self.stdout.write(self.style.SUCCESS(
            f"Imported {outcome.rows:,} rows: {outcome.created:,} new, "
            f"{outcome.updated:,} replaced."))
