"""`manage.py analytics_refresh [--app APP_ID [--start DAY] [--end DAY]]`: bring the daily
rollups up to date now, without waiting for beat.

Without --app: what the beat task does, with no time budget (adds everything committed since
the last refresh, and rebuilds every queued day). With --app: also rebuild every day of that
app (or of --start..--end), e.g. after rollups were lost or tracking's rows corrected by hand.
"""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from analytics import rollups
from analytics.management.arguments import existing_app_id
from analytics.progress import Progress


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a date (YYYY-MM-DD)") from None


class Command(BaseCommand):
    help = "Refresh the analytics rollups now; with --app, rebuild that app's days."

    def add_arguments(self, parser):
        parser.add_argument("--app", dest="app_id", help="rebuild every day of this app")
        parser.add_argument("--start", help="first day to rebuild (with --app)")
        parser.add_argument("--end", help="last day to rebuild (with --app)")

    def handle(self, *, app_id: str | None, start: str | None, end: str | None, **options):
        if app_id is None:
            if start or end:
                raise CommandError("--start and --end need --app")
            outcome = rollups.refresh()
            self.stdout.write(f"Added {outcome.rows_added:,} new rows, queued "
                              f"{outcome.days_queued:,} days, rebuilt {outcome.days_rebuilt:,}, "
                              f"{outcome.days_pending:,} pending.")
            return
        first, last = (_day(start) if start else None), (_day(end) if end else None)
        if first and last and last < first:
            raise CommandError("--end is before --start")
        app_uuid = existing_app_id(app_id)
        progress = Progress(label="Rebuilding rollups (days)", stream=self.stdout)
        done = rollups.rebuild_app(app_id=app_uuid, start=first, end=last,
                                   progress=progress.update)
        progress.finish()
        self.stdout.write(f"Rebuilt {done:,} day rollups.")
