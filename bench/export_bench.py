"""Raw-data export benchmark: rows per second of one worker from the database to Parquet files,
with its memory sampled throughout (docs/benchmarks.md, "Raw-data export").

Runs `raw_export.writing.write_run` in this process, one topic at a time, as a destination's
first run (everything committed so far) into a local directory, for the demo app seeded by
`manage.py seed_demo` on the database DATABASE_URL names. A thread reads the process's
resident memory every 0.2 s; memory is flat when the samples after the first few seconds stay
within a few tens of MB while the rows go from thousands to millions.

    DATABASE_URL=postgres://... .venv/bin/python bench/export_bench.py --seed \\
        --installs 1000000 --events 10000000 --clicks 5000000      # seeds first (~10 min)
    DATABASE_URL=postgres://... .venv/bin/python bench/export_bench.py  # times the seeded app

--with-trails first gives every install a decision trail of the waterfall's usual size (the
seeder stores none), so the installs' one-sentence summary costs what it costs in production.
Not a test: nothing here asserts a timing. Results are printed as Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-at-least-32-bytes-long")

TOPICS = ("installs", "inapps", "clicks")
PAGE = os.sysconf("SC_PAGE_SIZE")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", action="store_true", help="run seed_demo first")
    parser.add_argument("--installs", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--clicks", type=int, default=5_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--with-trails", action="store_true",
                        help="store a typical decision trail on every install first")
    parser.add_argument("--topics", default=",".join(TOPICS))
    parser.add_argument("--format", default="parquet", choices=("parquet", "csv"))
    return parser.parse_args()


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


class MemorySampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []
        self._done = threading.Event()

    def run(self):
        start = time.monotonic()
        while not self._done.wait(0.2):
            self.samples.append((time.monotonic() - start, rss_mb()))

    def stop(self) -> list[tuple[float, float]]:
        self._done.set()
        self.join()
        return self.samples


TRAIL = {
    "window_start": "2026-11-01T09:00:00+00:00", "method": "fingerprint", "score": 87.5,
    "factors": {"ip": 60, "user_agent": 20, "language": 5, "recency": 2.5},
    "steps": [{"method": "install_referrer", "outcome": "no usable referrer"},
              {"method": "device_id", "outcome": "no click with this device id"},
              {"method": "fingerprint", "outcome": "matched"}],
    "candidates": [{"click_id": str(uuid.UUID(int=n)), "clicked_at":
                    f"2026-11-07T08:1{n}:00+00:00", "media_source": f"network_{n}",
                    "campaign_id": f"campaign_{n}", "score": 55 + n,
                    "lost_because": "a later qualifying click won"} for n in range(3)],
    "click": {"click_id": str(uuid.UUID(int=99)), "clicked_at": "2026-11-07T08:30:00+00:00",
              "media_source": "network_9", "campaign_id": "campaign_9"},
}


def main():
    args = parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from apps_registry.models import App
    from raw_export.storage import DirectoryStorage
    from raw_export.writing import write_run
    from tracking.models import Install

    if args.seed:
        started = time.monotonic()
        call_command("seed_demo", installs=args.installs, events=args.events,
                     clicks=args.clicks, days=args.days, skip_rollups=True)
        print(f"seeded in {time.monotonic() - started:.0f} s")
    app = App.objects.order_by("created_at").first()
    if args.with_trails:
        started = time.monotonic()
        Install.objects.filter(app=app).update(decision=TRAIL)
        print(f"trails stored in {time.monotonic() - started:.0f} s")
    print(f"app {app.id}, database {connection.vendor}, format {args.format}\n")
    print("| topic | rows | seconds | rows/s | MB written | RSS at 5 s | RSS peak | RSS last |")
    print("|---|---|---|---|---|---|---|---|")
    totals = [0, 0.0]
    for topic in args.topics.split(","):
        with tempfile.TemporaryDirectory(prefix="export-bench-") as root:
            sampler = MemorySampler()
            sampler.start()
            started = time.monotonic()
            outcome = write_run(storage=DirectoryStorage(root), prefix="bench", fmt=args.format,
                                topics=[topic], app_ids=[app.id], since=None,
                                run_id=uuid.uuid4().hex[:8])
            seconds = time.monotonic() - started
            samples = sampler.stop()
        counts = outcome.topics[topic]
        settled = [mb for at, mb in samples if at >= 5] or [samples[-1][1]]
        print(f"| {topic} | {counts.rows:,} | {seconds:.1f} | {counts.rows / seconds:,.0f} | "
              f"{counts.bytes / 2**20:,.0f} | {settled[0]:.0f} MB | {max(settled):.0f} MB | "
              f"{settled[-1]:.0f} MB |")
        totals[0] += counts.rows
        totals[1] += seconds
    print(f"| all | {totals[0]:,} | {totals[1]:.1f} | {totals[0] / totals[1]:,.0f} | | | | |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nprocess peak RSS {peak:.0f} MB; load average {json.dumps(os.getloadavg())}")


if __name__ == "__main__":
    main()
