"""`manage.py seed_demo`: a demo app with realistic installs, clicks, events, revenue, ad costs
and currency rates, its analytics rollups built, ready to browse after `make run`.

Without --app-id it creates (or reuses) the user demo@example.com (password demo-password) and
an Android app "Demo Runner" in that user's organization. Sizes are options; the benchmark uses
--installs 1000000 --events 10000000 --clicks 5000000 --days 90 on PostgreSQL, where the rows
go in through COPY. Run it on a fresh app: it appends, it does not replace.
"""

from __future__ import annotations

import uuid

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from accounts.services import account_signup, user_authenticate
from analytics import demo, rollups, services
from analytics.management.arguments import existing_app_id
from analytics.progress import Progress
from apps_registry import selectors as app_selectors
from apps_registry.services import app_create
from attribution_site.api.exceptions import Conflict, Unauthorized

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo-password"


def _positive(text: str) -> int:
    value = int(text.replace("_", "").replace(",", ""))
    if value < 0:
        raise ValueError(text)
    return value


class Command(BaseCommand):
    help = "Fill a demo app with installs, clicks, events, costs and rates, and build rollups."

    def add_arguments(self, parser):
        parser.add_argument("--installs", type=_positive, default=20_000)
        parser.add_argument("--events", type=_positive, default=200_000)
        parser.add_argument("--clicks", type=_positive, default=100_000)
        parser.add_argument("--days", type=_positive, default=90)
        parser.add_argument("--app-id", help="fill this existing app instead of the demo app")
        parser.add_argument("--seed", type=int, default=7, help="random seed (deterministic)")
        parser.add_argument("--skip-rollups", action="store_true",
                            help="leave the rollups to beat or analytics_refresh")

    def handle(self, *, installs, events, clicks, days, app_id, seed, skip_rollups,
               **options):
        if days < 1:
            raise CommandError("--days must be at least 1")
        app_uuid = self._app(app_id)
        sizes = demo.Sizes(installs=installs, events=events, clicks=clicks, days=days)
        now = timezone.now()
        self.stdout.write(f"Seeding app {app_uuid}: {installs:,} installs, {clicks:,} clicks, "
                          f"{events:,} events over {days} days")
        bars: dict[str, Progress] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                for bar in bars.values():
                    bar.finish()
                bars.clear()
                bars[stage] = Progress(label=f"{stage:>8}", stream=self.stdout)
            bars[stage].update(done, total)

        with transaction.atomic():
            loaded = demo.seed(app_id=app_uuid, sizes=sizes, now=now, seed=seed,
                               progress=progress)
        for bar in bars.values():
            bar.finish()
        costs = services.costs_import(app_id=app_uuid,
                                      rows=demo.costs(sizes=sizes, today=now.date(), seed=seed))
        rates = services.currency_rates_load(rows=demo.rates(sizes=sizes, today=now.date(),
                                                             seed=seed))
        self.stdout.write(f"Loaded {loaded.installs:,} installs, {loaded.clicks:,} clicks, "
                          f"{loaded.events:,} events, {costs.rows:,} cost rows, "
                          f"{rates.rows:,} currency rates")
        if not skip_rollups:
            bar = Progress(label=" rollups", stream=self.stdout)
            rollups.rebuild_app(app_id=app_uuid, progress=bar.update)
            bar.finish()
        self.stdout.write(self.style.SUCCESS(f"Demo app ready: {app_uuid}"))

    def _app(self, app_id: str | None) -> uuid.UUID:
        if app_id is not None:
            return existing_app_id(app_id)
        try:
            user = account_signup(email=DEMO_EMAIL, password=DEMO_PASSWORD, name="Demo User",
                                  company_name="Demo Company")
            self.stdout.write(f"Created user {DEMO_EMAIL} (password {DEMO_PASSWORD})")
        except Conflict:  # seeded before: reuse that user's organization
            try:
                user = user_authenticate(email=DEMO_EMAIL, password=DEMO_PASSWORD)
            except Unauthorized:
                raise CommandError(f"{DEMO_EMAIL} exists with another password; pass "
                                   "--app-id to fill one of your apps instead") from None
        app = app_selectors.apps_for_organization(organization_id=user.organization_id).filter(
            package_name="com.example.demo.runner").first()
        if app is None:
            app = app_create(organization_id=user.organization_id, name="Demo Runner",
                             platform="android", package_name="com.example.demo.runner",
                             play_store_url="https://play.google.com/store/apps/details"
                                            "?id=com.example.demo.runner")
        return app.id
