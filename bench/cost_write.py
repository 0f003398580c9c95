"""Cost write benchmark: a pull of 30 days x 5,000 ads (150,000 rows) written through
`analytics.costs.cost_rows_replace` on PostgreSQL (docs/benchmarks.md, "Ad spend write"; the
issue's bar: under a minute per worker, memory flat).

The rows come from a generator, as a network client's pages do, so memory shows what the write
itself holds. Two runs on the same connection and days: the first into empty days, the second
replacing them (what every later pull does). Prints rows/s and the process's peak resident
memory (getrusage) before and after each run: flat memory is a peak that barely moves while
150,000 rows go through. --tracemalloc adds the Python heap's peak during the write (it slows
the write about twofold, so rows/s is then not the figure to quote).

    createdb -h 127.0.0.1 -U postgres attr_spendreport   # once; migrated here
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/attr_spendreport \\
        .venv/bin/python bench/cost_write.py

Not a test: nothing here asserts a timing. Results are printed as Markdown.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
import uuid
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-at-least-32-bytes-long")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--ads", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=2, help="1: into empty days only")
    parser.add_argument("--tracemalloc", action="store_true")
    return parser.parse_args()


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def spend_rows(*, first: date, days: int, ads: int, run: int):
    """Meta-like rows: 50 campaigns of 10 ad sets of ads, spend in cents."""
    from analytics.costs import SpendRow

    for offset in range(days):
        day = first + timedelta(days=offset)
        for ad in range(ads):
            campaign, adset = ad // 100, ad // 10
            yield SpendRow(day=day, campaign_id=f"2385{campaign:08d}",
                           adset_id=f"2386{adset:08d}", ad_id=f"2387{ad:08d}",
                           spend=Decimal(1_000 + (ad * 37 + offset + run) % 9_000) / 100,
                           currency="USD", impressions=1_000 + ad, clicks=10 + ad % 50,
                           campaign_name=f"Campaign {campaign}", adset_name=f"Ad set {adset}",
                           ad_name=f"Ad {ad}")


def main():
    args = parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import Organization
    from analytics.costs import cost_rows_replace
    from apps_registry.services import app_create

    if connection.vendor != "postgresql":
        sys.exit("DATABASE_URL must name a PostgreSQL database")
    call_command("migrate", verbosity=0)
    organization = Organization.objects.create(name="cost bench")
    app = app_create(organization_id=organization.id, name="Cost bench", platform="android",
                     package_name=f"com.example.costbench{uuid.uuid4().hex[:8]}")
    first = date(2026, 1, 1)
    days = [first + timedelta(days=n) for n in range(args.days)]
    print(f"app {app.id}, PostgreSQL {connection.pg_version}, {args.days} days x "
          f"{args.ads:,} ads\n")
    print("| run | rows | removed | seconds | rows/s | max RSS before | max RSS after | "
          "heap peak |")
    print("|---|---|---|---|---|---|---|---|")
    for run in range(args.runs):
        before = max_rss_mb()
        if args.tracemalloc:
            tracemalloc.start()
        started = time.monotonic()
        outcome = cost_rows_replace(
            app_id=app.id, connection="meta", media_source="meta", account="act_123",
            days=days, rows=spend_rows(first=first, days=args.days, ads=args.ads, run=run))
        seconds = time.monotonic() - started
        heap = "–"
        if args.tracemalloc:
            heap = f"{tracemalloc.get_traced_memory()[1] / 2**20:.1f} MB"
            tracemalloc.stop()
        label = "into empty days" if run == 0 else "replacing the same days"
        print(f"| {label} | {outcome.rows:,} | {outcome.removed:,} | {seconds:.1f} | "
              f"{outcome.rows / seconds:,.0f} | {before:.0f} MB | {max_rss_mb():.0f} MB | "
              f"{heap} |")
    app.delete()
    organization.delete()


if __name__ == "__main__":
    main()
