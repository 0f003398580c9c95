"""`python manage.py prune_clicks`: remove clicks past the attribution window from the hot
store, with progress: on PostgreSQL whole expired week partitions, then the default partition's
expired rows in batches; elsewhere batches of deletes. The archive is never touched. Beat also
runs it daily."""

from django.core.management.base import BaseCommand
from django.utils import timezone

from tracking.attribution import WINDOW
from tracking.services import clicks_prune


class Command(BaseCommand):
    help = "Delete hot-store clicks older than the attribution window (archive untouched)."

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=10_000)
        parser.add_argument("--retention-days", type=int,
                            default=WINDOW.days)

    def handle(self, *args, batch_size, retention_days, **options):
        if batch_size < 1 or retention_days < 1:
            self.stderr.write("--batch-size and --retention-days must be positive")
            return
        deleted = clicks_prune(
            now=timezone.now(), retention_days=retention_days, batch_size=batch_size,
            progress=lambda n: self.stdout.write(f"deleted {n} clicks so far"))
        self.stdout.write(self.style.SUCCESS(f"done: {deleted} expired clicks removed "
                                             "from the hot store"))
