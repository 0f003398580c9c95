"""`python manage.py retention_enforce [--now ISO] [--rescan] [--batch-size N]`: enforce every app's
retention limits now, as beat does hourly (docs/privacy.md, "Retention"): IP addresses masked
and fingerprints dropped past `ip_retention_days`, archived clicks and events deleted past
`raw_retention_days`. With no time budget: it runs until everything is done. `--now` runs it
on another clock, such as the end of a day already past; a time in the future enforces limits
early, which cannot be undone. `--rescan` masks from the first row again instead of from where
the last run stopped: after loading history whose times are already past a limit.
"""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from retention.services import BATCH_SIZE, retention_enforce

NO_BUDGET = float("inf")


class Command(BaseCommand):
    help = "Mask IP addresses and delete raw rows past each app's retention limits."

    def add_arguments(self, parser):
        parser.add_argument("--now", help="the clock to enforce on (ISO 8601; default: now)")
        parser.add_argument("--rescan", action="store_true",
                            help="mask from the first row, not from where the last run stopped")
        parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)

    def handle(self, *args, now, rescan, batch_size, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be positive")
        moment = timezone.now()
        if now is not None:
            try:
                moment = datetime.fromisoformat(now)
            except ValueError:
                raise CommandError("--now must be an ISO 8601 time, such as "
                                   "2026-11-26T00:00:00Z") from None
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        outcome = retention_enforce(now=moment, batch_size=batch_size,
                                    budget_seconds=NO_BUDGET, rescan=rescan)
        if outcome is None:
            raise CommandError("another run is in progress (beat's, or another command's); "
                               "try again when it ends")
        for table, rows in outcome.masked.items():
            self.stdout.write(f"masked {rows} rows of {table}")
        for name in outcome.partitions_dropped:
            self.stdout.write(f"dropped {name}")
        for table, rows in outcome.deleted.items():
            self.stdout.write(f"deleted {rows} rows of {table}")
        self.stdout.write(self.style.SUCCESS(f"done: limits enforced as of {moment.isoformat()}"))
