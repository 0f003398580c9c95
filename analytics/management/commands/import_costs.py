"""`manage.py import_costs <app_id> <file.csv>`: load ad cost rows for an app (docs/analytics.md,
"Cost import replaces per key; refunds of cost are not accepted"). Columns: date (YYYY-MM-DD),
media_source, campaign_id (optional), cost, currency.

The same rules as POST /api/v1/costs and the console's upload (analytics/cost_csv.py). The
whole file is checked first; if any line is wrong, the errors are listed with their line
numbers and nothing is imported. A row whose (date, media_source, campaign_id) is already
stored replaces it, so re-importing a corrected file replaces the old figures.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from analytics import cost_csv, csv_input, services
from analytics.management.arguments import existing_app_id

MAX_ERRORS_SHOWN = 20


class Command(BaseCommand):
    help = "Import ad cost rows (date,media_source,campaign_id,cost,currency) for an app."

    def add_arguments(self, parser):
        parser.add_argument("app_id", help="UUID of the app the costs belong to")
        parser.add_argument("path", help="CSV file, or - for standard input")

    def handle(self, *, app_id: str, path: str, **options):
        app_uuid = existing_app_id(app_id)
        try:
            with csv_input.opened(path) as handle:
                checked = cost_csv.cost_file_read(handle)
        except csv_input.CsvProblem as exc:
            raise CommandError(str(exc)) from None
        errors = checked.messages()
        if errors:
            shown = errors[:MAX_ERRORS_SHOWN]
            more = len(errors) - len(shown)
            raise CommandError("\n".join([*shown, *([f"... and {more} more"] if more else []),
                                          "Nothing was imported."]))
        parsed = checked.rows

        def progress(done: int, total: int) -> None:
            self.stdout.write(f"  {done:,}/{total:,} rows ({done * 100 // total}%)")

        self.stdout.write(f"Importing {len(parsed):,} cost rows for app {app_uuid}")
        outcome = services.costs_import(app_id=app_uuid, rows=parsed, progress=progress)
        self.stdout.write(self.style.SUCCESS(
            f"Imported {outcome.rows:,} rows: {outcome.created:,} new, "
            f"{outcome.updated:,} replaced."))
        if outcome.shadowed:
            # Stored, but a network's pulled spend outranks them (analytics.costs.precedence).
            self.stdout.write(self.style.WARNING(
                f"{outcome.shadowed_count:,} rows are shadowed by pulled spend and not counted:"))
            for day, media_source, campaign_id in outcome.shadowed_first:
                self.stdout.write(f"  {day} {media_source} {campaign_id or '(no campaign)'}")
