"""`python manage.py partitions_ensure [--since YYYY-MM-DD]`: make the partitions beat makes
hourly (holding today, the days ahead, and any day whose rows wait in a default partition: the
hot store's weeks, the archive's and events' days) now, and with `--since` those of every day
from that date: run it before loading history, whose rows would otherwise wait in the default
partitions until moved. PostgreSQL only; nothing to do on SQLite.
"""

from datetime import UTC, date, datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from tracking.partition_sql import in_use, partitions_ensure

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)  # as far back as the API takes an event


class Command(BaseCommand):
    help = "Create the missing week and day partitions of clicks and events (PostgreSQL)."

    def add_arguments(self, parser):
        parser.add_argument("--since", help="also every day from this date (YYYY-MM-DD, UTC)")

    def handle(self, *args, since, **options):
        now = timezone.now()
        start = None
        if since is not None:
            try:
                start = datetime.combine(date.fromisoformat(since), datetime.min.time(), UTC)
            except ValueError:
                raise CommandError("--since must be a date, YYYY-MM-DD") from None
            if not EARLIEST <= start <= now:  # a typo must not make a partition per day since 0226
                raise CommandError("--since must be a date from 2000-01-01 to today")
        if not in_use():
            self.stdout.write("nothing to do: this database keeps plain tables")
            return
        made = partitions_ensure(now=now, since=start)
        for name in made:
            self.stdout.write(f"created {name}")
        self.stdout.write(self.style.SUCCESS(f"done: {len(made)} partitions created"))
