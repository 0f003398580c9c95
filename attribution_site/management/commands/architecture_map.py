"""`manage.py architecture_map --write` (`make map`): rewrite docs/architecture.md's generated
tables from the live registries; `--check`: exit 1 with the diff when the doc disagrees."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from attribution_site import architecture_map


class Command(BaseCommand):
    help = "Rewrite (--write) or check (--check) docs/architecture.md's generated tables."

    def add_arguments(self, parser):
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--write", action="store_true", help="rewrite the tables")
        action.add_argument("--check", action="store_true",
                            help="exit 1, printing the diff, when the doc disagrees with the code")
        parser.add_argument("--doc", type=Path, default=architecture_map.DOC,
                            help="the doc (default: docs/architecture.md)")

    def handle(self, *args, write: bool, check: bool, doc: Path, **options):
        try:
            if write:
                changed = architecture_map.write(doc)
                self.stdout.write(f"{doc}: {'tables rewritten' if changed else 'up to date'}")
                return
            diff = architecture_map.difference(doc)
        except architecture_map.MarkerMissing as missing:
            raise CommandError(f"{doc}: {missing}") from None
        if diff:
            self.stdout.write(diff)
            raise CommandError(f"{doc} disagrees with the code: run `make map` and commit it.")
        self.stdout.write(f"{doc}: up to date")
