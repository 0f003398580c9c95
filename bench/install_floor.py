"""How far the install path can go: the service's `POST /installs` beside its floor
(bench/floor/floor_site.py: the same two statements on the same tables with none of the
service's Python between) and the bare Django baseline, served alike, with the CPU each
request costs the web tier and PostgreSQL.

    .venv/bin/python bench/hotpaths.py --postgres postgres://postgres@127.0.0.1:5432 \\
        --rounds 1 --duration 2                                  # leaves attr_bench behind
    .venv/bin/python bench/install_floor.py --rounds 5

On the database bench/hotpaths.py leaves behind (its 1,000,000 clicks), each server is
started as bench/hotpaths.py starts them (gunicorn gthread, 2 workers x 4 threads) and wrk
drives bench/wrk/installs.lua (the floor and the service) or baseline.lua in rotation, each
round's installs runs starting with no installs stored and every run after a CHECKPOINT.
Around each run the CPU of the server's process tree and of PostgreSQL's (from /proc) is read.
The floor's ratio to the baseline is the most any install path on these statements could
reach. Not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import psycopg
from harness import tree_cpu_seconds
from hotpaths import (
    BASELINE_PORT,
    CLICKS_PER_NETWORK,
    GUNICORN,
    PYTHON,
    ROOT,
    SERVICE_PORT,
    service_env,
    start,
    stop,
    wrk,
)

FLOOR_PORT = 8104


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/attr_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    return parser.parse_args()


def wrk_env(env: dict) -> dict:
    """The bench app's id, a new key of it and the click counts installs.lua reads."""
    code = ("import django; django.setup()\n"
            "from apps_registry.models import App\n"
            "from apps_registry.services import api_key_create\n"
            "from tracking.models import Click\n"
            "app = App.objects.get()\n"
            "print(app.id, api_key_create(app=app)[1], Click.objects.filter(app=app).count())\n")
    app_id, key, clicks = subprocess.run([PYTHON, "-c", code], cwd=ROOT, env=env, check=True,
                                         capture_output=True, text=True).stdout.split()
    return dict(os.environ, BENCH_APP_ID=app_id, BENCH_KEY=key, BENCH_CLICKS=clicks,
                BENCH_NETWORKS=str(int(clicks) // CLICKS_PER_NETWORK))


def postmaster_pid(database: str) -> int:
    with psycopg.connect(database) as conn:
        data = conn.execute("SHOW data_directory").fetchone()[0]
    return int(Path(data, "postmaster.pid").read_text().split()[0])


def main() -> None:
    args = parse_args()
    env = service_env(args, args.database, args.redis)
    client = wrk_env(env)
    postmaster = postmaster_pid(args.database)
    servers = {
        "baseline": (start([GUNICORN, "baseline_site:application"],
                           dict(env, DJANGO_SETTINGS_MODULE="baseline_site"),
                           ROOT / "bench" / "baseline", BASELINE_PORT, args),
                     BASELINE_PORT, "baseline.lua"),
        "installs": (start([GUNICORN, "attribution_site.wsgi"], env, ROOT, SERVICE_PORT, args),
                     SERVICE_PORT, "installs.lua"),
        "floor": (start([GUNICORN, "floor_site:application"], dict(env, PYTHONPATH=str(ROOT)),
                        ROOT / "bench" / "floor", FLOOR_PORT, args), FLOOR_PORT, "installs.lua"),
    }
    results: dict[str, list[dict]] = {name: [] for name in servers}
    try:
        warm_up = argparse.Namespace(**{**vars(args), "duration": 2})
        for _, port, script in servers.values():
            wrk(port, script, warm_up, client)
        for round_no in range(1, args.rounds + 1):
            for name, (process, port, script) in servers.items():
                with psycopg.connect(args.database, autocommit=True) as conn:
                    conn.execute("TRUNCATE tracking_install, tracking_reengagement")
                    conn.execute("CHECKPOINT")
                web, database = tree_cpu_seconds(process.pid), tree_cpu_seconds(postmaster)
                result = wrk(port, script, args, client)
                served = result["total"]
                result["web_ms"] = (tree_cpu_seconds(process.pid) - web) * 1000 / served
                result["pg_ms"] = (tree_cpu_seconds(postmaster) - database) * 1000 / served
                results[name].append(result)
                flag = f"  NON-2XX/3XX: {result['bad']}" if result["bad"] else ""
                print(f"  [round {round_no}] {name:9s} {result['rps']:8.1f} req/s  web "
                      f"{result['web_ms']:.3f} ms  PostgreSQL {result['pg_ms']:.3f} ms"
                      f"{flag}", flush=True)
    finally:
        for process, _, _ in servers.values():
            stop(process)
    report(args, results)


def report(args, results: dict[str, list[dict]]) -> None:
    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    def ratio(name: str) -> float:  # the median of the rounds' ratios, as bench/hotpaths.py
        return statistics.median(r["rps"] / b["rps"]
                                 for r, b in zip(results[name], results["baseline"],
                                                 strict=True))

    print(f"\nMedian of {args.rounds} rounds, {args.duration} s each, wrk -t2 "
          f"-c{args.connections}, gunicorn gthread -w {args.workers} --threads {args.threads}:")
    print("| server | req/s | ratio to baseline | web CPU ms/request | PostgreSQL CPU "
          "ms/request |")
    print("|---|---:|---:|---:|---:|")
    for name in results:
        print(f"| {name} | {median(name, 'rps'):,.0f} | "
              f"{ratio(name):.3f} | {median(name, 'web_ms'):.3f} | "
              f"{median(name, 'pg_ms'):.3f} |")


if __name__ == "__main__":
    sys.exit(main())
