"""`manage.py raw_export_run`: start a run of every destination now (what beat's schedule does
every RAW_EXPORT_INTERVAL_SECONDS), or of one with --destination. Without a broker (`make run`)
the runs happen in this process before it returns; with one, a worker runs them."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from raw_export import services
from raw_export.models import Destination, RunTrigger


class Command(BaseCommand):
    help = "Start a raw-data export run of every destination (or of one) now."

    def add_arguments(self, parser):
        parser.add_argument("--destination", help="the id of one destination")

    def handle(self, *args, destination=None, **options):
        now = timezone.now()
        if destination:
            row = Destination.objects.filter(id=destination).first()
            if row is None:
                raise CommandError(f"No data destination {destination}.")
            run_ids = [str(services.run_start(destination=row, trigger=RunTrigger.MANUAL,
                                              now=now).id)]
        else:
            run_ids = services.runs_schedule(now=now)
        self.stdout.write(f"Started {len(run_ids)} run(s): {', '.join(run_ids) or 'none due'}.")
