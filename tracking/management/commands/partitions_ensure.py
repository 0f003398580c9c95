"""`python manage.py partitions_ensure`: make the day partitions beat makes hourly (today, the
days ahead, and any day whose rows wait in a default partition) now, e.g. after a bulk load of
history. PostgreSQL only; nothing to do on SQLite."""

from django.core.management.base import BaseCommand
from django.utils import timezone

from tracking.partition_sql import in_use, partitions_ensure


class Command(BaseCommand):
    help = "Create the missing day partitions of clicks and events (PostgreSQL)."

    def handle(self, *args, **options):
        if not in_use():
            self.stdout.write("nothing to do: this database keeps plain tables")
            return
        made = partitions_ensure(now=timezone.now())
        for name in made:
            self.stdout.write(f"created {name}")
        self.stdout.write(self.style.SUCCESS(f"done: {len(made)} partitions created"))
