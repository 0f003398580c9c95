"""Per-core figures for sizing (docs/scaling.md): the CPU each SDK request costs the web tier
and PostgreSQL, and how many deliveries a Celery worker sends per second.

    .venv/bin/python bench/capacity.py                        # this tree, both phases
    .venv/bin/python bench/capacity.py --phases web --code /work/before --code /work/main
                                                              # two trees in rotation
    .venv/bin/python bench/capacity.py --rounds 1 --duration 5 --deliveries 100   # a quick look

Web: a private PostgreSQL server (port 5497, 1 GB shared_buffers, otherwise PostgreSQL's
defaults) holds, for each tree given with --code, a database with --clicks clicks of the last 6
days (loaded as bench/hotpaths.py loads them; on a partitioned tree moved into their day or
week partitions by the tree's own `partitions_ensure`; the hot store prewarmed); each tree's
gunicorn is started as the README starts it (`gunicorn attribution_site.wsgi -c
gunicorn.conf.py`: gthread, 2 workers x 4 threads) and wrk drives clicks
(bench/wrk/clicks.lua), installs (installs.lua: half device-id matches, half fingerprint
lookups) and event batches of 10 (event_batches.lua, each event with a client event id) in
rotation (each path against each tree in turn, the trees' order reversed every round),
--rounds times, --duration seconds each, a CHECKPOINT before each run. Around each run
the user and system CPU of gunicorn's process tree and of PostgreSQL's (every backend and
background process, from /proc, exited children included) is read; divided by the requests
served this gives CPU milliseconds per request, and 1000 / that is what one core of each tier
serves per second when nothing else shares it. A gthread worker runs Python under one GIL, so a
web core is one gunicorn worker process. The WAL each request wrote (pg_current_wal_lsn around
the run) is printed too, and after each run one rollup refresh (what beat's task runs every
2 s) adds the run's rows: its rows per second and CPU per row, since one process refreshes
at a time.

Deliveries: on each tree given (each on its own database), with the README's worker (`celery -A
attribution_site worker --loglevel=INFO`, its default concurrency, then `-c 1`; the worker of a
tree before attribution_site/worker_connections.py opens a database connection for every task,
one after it keeps it), --deliveries installs are published the
way tracking publishes them (one transaction each, a postback to a plain-HTTP local receiver,
or a signed webhook to an HTTPS one), their messages held back, then sent one message per
delivery; the time from the first message to the last delivery marked succeeded gives
deliveries/s, and the worker's and PostgreSQL's CPU over that time give CPU per delivery (the
driver's polling, an index-only look at the open deliveries every 0.1 s, is in PostgreSQL's
share).

Redis db 14 (and 15 for a second tree's deliveries). Not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from harness import (
    PYTHON,
    REDIS_URL,
    ROOT,
    Process,
    Receiver,
    app_create,
    code_env,
    code_label,
    ensure_free,
    manage,
    migrate,
    private_server,
    recreate_database,
    shell,
    tree_cpu_seconds,
    trusted_tls,
    wait_for_http,
)

WEB_PORT = 8131
PATHS = {  # name -> (wrk script, table whose new rows are the writes, extra wrk environment)
    "clicks": ("clicks.lua", "tracking_click", {}),
    "installs": ("installs.lua", "tracking_install", {}),
    "event batches of 10": ("event_batches.lua", "tracking_event", {"BENCH_BATCH": "10"}),
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, action="append",
                        help="a tree to measure (repeat: the runs rotate between trees); "
                             "default: this one")
    parser.add_argument("--phases", default="web,deliveries")
    parser.add_argument("--clicks", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--deliveries", type=int, default=500, help="per measured drain")
    return parser.parse_args()


REFRESH = """
import time
from analytics import rollups
started, cpu = time.perf_counter(), time.process_time()
outcome = rollups.refresh()
print('REFRESH', outcome.rows_added, outcome.days_rebuilt, time.perf_counter() - started,
      time.process_time() - cpu)
"""


def refresh(code: Path, env: dict, server) -> dict:
    """One rollup refresh, as beat's task runs it, of what committed since the last: the rows
    it added, its own time and CPU, and PostgreSQL's CPU around it."""
    pg = tree_cpu_seconds(server.postmaster_pid())
    out = shell(code, env, REFRESH)
    pg = tree_cpu_seconds(server.postmaster_pid()) - pg
    _, rows, rebuilt, seconds, cpu = next(line for line in out.splitlines()
                                          if line.startswith("REFRESH ")).split()
    return {"rows": int(rows), "rebuilt": int(rebuilt), "seconds": float(seconds),
            "cpu": float(cpu), "pg": pg}


def settle_hot_store(code: Path, env: dict, database: str) -> None:
    """What a server that has been taking clicks holds: on a partitioned tree, the loaded days
    in their partitions (beat's partitions_ensure moves them out of the default partition, where
    COPY put every day but today's and the days ahead); on either, the hot store vacuumed,
    analyzed, checkpointed and in shared_buffers with its indexes."""
    with psycopg.connect(database, autocommit=True) as conn:
        if conn.execute("SELECT relkind = 'p' FROM pg_class WHERE relname = 'tracking_click'"
                        ).fetchone()[0]:
            manage(code, env, "partitions_ensure")
        conn.execute("VACUUM (ANALYZE) tracking_click")
        conn.execute("CHECKPOINT")
        # Each table holding the hot store's rows (its partitions, or itself), and its indexes.
        relations = conn.execute(
            "WITH leaves AS (SELECT relid FROM pg_partition_tree('tracking_click') WHERE isleaf"
            " UNION SELECT 'tracking_click'::regclass WHERE (SELECT relkind FROM pg_class"
            " WHERE relname = 'tracking_click') = 'r')"
            " SELECT relid::oid FROM leaves UNION SELECT indexrelid FROM pg_index"
            " WHERE indrelid IN (SELECT relid FROM leaves)").fetchall()
        for (relation,) in relations:
            conn.execute("SELECT pg_prewarm(%s::oid::regclass)", [relation])


@dataclass
class WebTree:
    """A tree of the service on its own database, served by its own gunicorn."""

    code: Path
    database: str
    port: int
    env: dict = field(default_factory=dict)
    wrk_env: dict = field(default_factory=dict)
    web: Process | None = None
    label: str = ""
    results: dict[str, list[dict]] = field(default_factory=dict)

    def set_up(self, args, server, hotpaths) -> None:
        recreate_database(self.database)
        self.env = code_env(self.database)
        migrate(self.code, self.env)
        _, app_id, key = app_create(self.code, self.env)
        hotpaths.load_clicks(self.database, app_id, 0, args.clicks)
        settle_hot_store(self.code, self.env, self.database)
        refresh(self.code, self.env, server)  # the first start: days rebuilt, watermark set
        ensure_free(self.port)
        self.web = Process("gunicorn attribution_site.wsgi -c gunicorn.conf.py", code=self.code,
                           env={**self.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}"},
                           log=Path(tempfile.mkdtemp(prefix="attr-capacity-")) / "gunicorn.log")
        self.wrk_env = dict(os.environ, BENCH_APP_ID=app_id, BENCH_KEY=key,
                            BENCH_CLICKS=str(args.clicks),
                            BENCH_NETWORKS=str(args.clicks // hotpaths.CLICKS_PER_NETWORK))
        self.label = code_label(self.code)
        self.results = {name: [] for name in PATHS}


def measured_run(tree: WebTree, name: str, args, server, hotpaths) -> dict:
    """One wrk run of a path against a tree, with the CPU of its gunicorn and of PostgreSQL
    (only this tree's server is busy meanwhile), its WAL and rows, then one rollup refresh."""
    script, table, extra = PATHS[name]
    with psycopg.connect(tree.database, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        rows = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        lsn = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        pg, served = tree_cpu_seconds(server.postmaster_pid()), tree_cpu_seconds(tree.web.pid)
        run = hotpaths.wrk(tree.port, script, args, {**tree.wrk_env, **extra})
        run["pg"] = tree_cpu_seconds(server.postmaster_pid()) - pg
        run["web"] = tree_cpu_seconds(tree.web.pid) - served
        run["wal"] = conn.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)",
                                  [lsn]).fetchone()[0]
        run["writes"] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] - rows
    run["refresh"] = refresh(tree.code, tree.env, server)
    return run


def web_phase(args, server, codes: list[Path]) -> None:
    import hotpaths  # its click loader and wrk runner, so both benches load and drive alike

    sys.path.insert(1, str(codes[0]))  # the loader computes fingerprints with a tree's code
    trees = [WebTree(code, server.database(f"attr_capacity_{i}"), WEB_PORT + i)
             for i, code in enumerate(codes)]
    loads = [os.getloadavg()[0]]
    try:
        for tree in trees:
            tree.set_up(args, server, hotpaths)
        warm_up = argparse.Namespace(connections=args.connections, duration=2)
        for tree in trees:
            wait_for_http(tree.port)
            for script, _, extra in PATHS.values():
                hotpaths.wrk(tree.port, script, warm_up, {**tree.wrk_env, **extra})
            refresh(tree.code, tree.env, server)
        for round_no in range(1, args.rounds + 1):
            for name in PATHS:
                for tree in trees if round_no % 2 else trees[::-1]:
                    run = measured_run(tree, name, args, server, hotpaths)
                    tree.results[name].append(run)
                    loads.append(os.getloadavg()[0])
                    print(f"  [round {round_no}] {tree.label} {name:20s} {run['rps']:8.1f} "
                          f"req/s, web {run['web'] * 1000 / run['total']:.2f} ms "
                          f"CPU/request, PostgreSQL {run['pg'] * 1000 / run['total']:.3f} ms, "
                          f"WAL {run['wal'] / run['total']:,.0f} B/request, "
                          f"{run['writes']:,} rows; refresh of {run['refresh']['rows']:,} "
                          f"rows in {run['refresh']['seconds']:.2f} s"
                          f"{', NON-2XX/3XX: ' + str(run['bad']) if run['bad'] else ''}",
                          flush=True)
    finally:
        for tree in trees:
            if tree.web is not None:
                tree.web.stop()
    print(f"\nWeb and database CPU per SDK request (median of {args.rounds} rounds, "
          f"{args.duration} s each, trees in rotation, wrk -t2 -c{args.connections}, gunicorn "
          "-w 2 --threads 4 on 2 cores shared with PostgreSQL and wrk; "
          f"{args.clicks:,} clicks stored; load average {min(loads):.1f} to {max(loads):.1f} "
          "during the runs):\n")
    print("| tree | request | req/s on this box | web CPU ms | requests per web core-second | "
          "PostgreSQL CPU ms | requests per PostgreSQL core-second | WAL bytes | rows written "
          "|\n|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for tree in trees:
        for name, runs in tree.results.items():
            web_ms = statistics.median(r["web"] * 1000 / r["total"] for r in runs)
            pg_ms = statistics.median(r["pg"] * 1000 / r["total"] for r in runs)
            print(f"| {tree.label} | {name} | {statistics.median(r['rps'] for r in runs):,.0f} "
                  f"| {web_ms:.2f} | {1000 / web_ms:,.0f} | {pg_ms:.3f} | {1000 / pg_ms:,.0f} | "
                  f"{statistics.median(r['wal'] / r['total'] for r in runs):,.0f} | "
                  f"{statistics.median(r['writes'] / r['total'] for r in runs):.2f} |")
    if len(trees) == 2:
        print(f"\n{trees[1].label} against {trees[0].label}, the median of the rounds' ratios "
              "of CPU per request:\n")
        print("| request | web | PostgreSQL |\n|---|---:|---:|")
        for name in PATHS:
            pairs = list(zip(trees[1].results[name], trees[0].results[name], strict=True))
            print(f"| {name} | "
                  f"{statistics.median(a['web'] / a['total'] / (b['web'] / b['total']) for a, b in pairs):.2f}x | "  # noqa: E501
                  f"{statistics.median(a['pg'] / a['total'] / (b['pg'] / b['total']) for a, b in pairs):.2f}x |")  # noqa: E501
    print("\nThe rollup refresh after each run (one process, as beat's task; rows added of each "
          "kind, per second of the refresh's own time, and CPU per row):\n")
    print("| tree | rows of | rows per refresh | rows/s | refresh CPU us per row | PostgreSQL "
          "CPU us per row |\n|---|---|---:|---:|---:|---:|")
    for tree in trees:
        for name, runs in tree.results.items():
            done = [r["refresh"] for r in runs if r["refresh"]["rows"]]
            if done:
                print(f"| {tree.label} | {name} | "
                      f"{statistics.median(d['rows'] for d in done):,.0f} | "
                      f"{statistics.median(d['rows'] / d['seconds'] for d in done):,.0f} | "
                      f"{statistics.median(d['cpu'] * 1e6 / d['rows'] for d in done):,.0f} | "
                      f"{statistics.median(d['pg'] * 1e6 / d['rows'] for d in done):,.0f} |")


DRAIN = """
import sys, time, uuid
from datetime import timedelta
from django.db import transaction
from django.utils import timezone
from attribution_site import domain_events
from delivery import enqueue
from delivery.models import Delivery

app_id = uuid.UUID(%(app_id)r)
held = []
send = enqueue.deliveries_enqueue
enqueue.deliveries_enqueue = held.extend  # created now, sent when the clock starts
now = timezone.now()
for n in range(%(count)d):
    with transaction.atomic():
        domain_events.publish([domain_events.InstallAttributed(
            app_id=app_id, install_id=uuid.uuid4(), device_id=f'gaid-{n}', platform='android',
            media_source='network1', campaign_id='c1', match_type='device_id',
            confidence=100.0, is_organic=False, installed_at=now, click_id=uuid.uuid4(),
            click_time=now - timedelta(hours=1))])
enqueue.deliveries_enqueue = send
print('CREATED', len(held), flush=True)
sys.stdin.readline()
started = time.monotonic()
for delivery_id in held:
    send([delivery_id])
# The open deliveries' own partial index answers this without reading the rows sent.
while Delivery.objects.filter(app_id=app_id, state__in=('pending', 'sending')).exists():
    time.sleep(0.1)
print('SECONDS', time.monotonic() - started)
print('FAILED', Delivery.objects.filter(id__in=held).exclude(state='succeeded').count(),
      flush=True)
"""


def drain(code: Path, env: dict, app_id: str, count: int, worker: Process, server) -> dict:
    """Publish `count` installs of an app with one delivery each, then send them and time
    the worker until the last one succeeded."""
    driver = subprocess.Popen([PYTHON, "manage.py", "shell", "-c",
                               DRAIN % {"app_id": app_id, "count": count}],
                              cwd=code, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    said = ""
    while not said.startswith("CREATED"):  # after Django's shell greeting, if any
        said = driver.stdout.readline()
        if not said:
            raise SystemExit(f"the driver stopped: exit code {driver.wait()}")
    cpu, pg = tree_cpu_seconds(worker.pid), tree_cpu_seconds(server.postmaster_pid())
    driver.stdin.write("\n")
    driver.stdin.flush()
    lines = dict(line.split() for line in driver.stdout.read().splitlines()
                 if line.startswith(("SECONDS ", "FAILED ")))
    cpu = tree_cpu_seconds(worker.pid) - cpu
    pg = tree_cpu_seconds(server.postmaster_pid()) - pg
    driver.wait()
    seconds = float(lines["SECONDS"])
    return {"seconds": seconds, "rate": count / seconds, "cpu_ms": cpu * 1000 / count,
            "pg_ms": pg * 1000 / count, "failed": int(lines["FAILED"])}


# Each tree's worker has a broker of its own, so it never takes another tree's messages.
DELIVERY_REDIS_URLS = (REDIS_URL, "redis://127.0.0.1:6379/15")  # up to two trees
WORKERS = (  # label, pool processes, command
    (f"{os.cpu_count()} processes (the README's command)", os.cpu_count(),
     "celery -A attribution_site worker --loglevel=INFO"),
    ("1 process (`-c 1`)", 1, "celery -A attribution_site worker --loglevel=INFO -c 1"),
)


@dataclass
class DeliveryTree:
    """A tree of the service on its own database, with a postback app and a webhook app."""

    code: Path
    database: str
    env: dict = field(default_factory=dict)
    apps: dict = field(default_factory=dict)
    label: str = ""

    def set_up(self, plain: Receiver, secure: Receiver, bundle: str, redis_url: str) -> None:
        import redis

        recreate_database(self.database)
        redis.Redis.from_url(redis_url).flushdb()  # no message of an earlier run
        self.env = code_env(self.database, redis_url=redis_url,
                            OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", REQUESTS_CA_BUNDLE=bundle)
        migrate(self.code, self.env)
        for kind, email in (("postback", "postback@example.com"),
                            ("webhook", "webhook@example.com")):
            _, self.apps[kind], _ = app_create(self.code, self.env, email=email)
        shell(self.code, self.env, (
            "from apps_registry.models import App\n"
            "from delivery.services import postback_create, webhook_create\n"
            f"postback_create(app=App.objects.get(id='{self.apps['postback']}'),"
            f" media_source='network1', postback_url='{plain.url}/pb?i={{install_id}}')\n"
            f"webhook_create(app=App.objects.get(id='{self.apps['webhook']}'),"
            f" url='{secure.url}/hook', events=['install'])\n"))
        self.label = code_label(self.code)


def deliveries_phase(args, server, codes: list[Path]) -> None:
    """For each worker command, one worker per tree, each on its own database and Redis db,
    all started at once (an idle worker costs nothing), then each round drains each tree in
    turn, the trees' order reversed every round."""
    logs = Path(tempfile.mkdtemp(prefix="attr-capacity-"))
    results: dict[tuple[str, str, str], list[dict]] = {}
    with trusted_tls() as (tls, bundle):
        plain, secure = Receiver(), Receiver(tls=tls)
        trees = [DeliveryTree(code, server.database(f"attr_capacity_deliveries_{i}"))
                 for i, code in enumerate(codes)]
        for i, tree in enumerate(trees):
            tree.set_up(plain, secure, bundle, DELIVERY_REDIS_URLS[i])
        for number, (label, _, command) in enumerate(WORKERS):
            workers = []
            try:
                for tree in trees:
                    workers.append(Process(command, code=tree.code, env=tree.env,
                                           log=logs / f"worker-{number}-{tree.label}.log"))
                for tree, worker in zip(trees, workers, strict=True):
                    worker.wait_for("ready.")
                    drain(tree.code, tree.env, tree.apps["postback"], 50, worker, server)
                for round_no in range(1, args.rounds + 1):
                    pairs = list(zip(trees, workers, strict=True))
                    for tree, worker in pairs if round_no % 2 else pairs[::-1]:
                        for kind in ("postback", "webhook"):
                            run = drain(tree.code, tree.env, tree.apps[kind],
                                        args.deliveries, worker, server)
                            results.setdefault((tree.label, label, kind), []).append(run)
                            print(f"  [round {round_no}] {tree.label}, {label}, {kind}s: "
                                  f"{run['rate']:.0f}/s, worker CPU {run['cpu_ms']:.2f} ms "
                                  f"each, PostgreSQL {run['pg_ms']:.2f} ms, failed "
                                  f"{run['failed']}", flush=True)
            finally:
                for worker in workers:
                    worker.stop()
        plain.stop()
        secure.stop()
    print(f"\nDeliveries by one worker (median of {args.rounds} rounds of "
          f"{args.deliveries:,}; the receivers in the bench process on the same 2 cores, "
          "answering 200 at once):\n")
    print("| tree | worker | kind | deliveries/s | per worker process | worker CPU ms per "
          "delivery | deliveries per worker core-second | PostgreSQL CPU ms per delivery |\n"
          "|---|---|---|---:|---:|---:|---:|---:|")
    processes = {label: count for label, count, _ in WORKERS}
    for (tree, label, kind), runs in results.items():
        rate = statistics.median(r["rate"] for r in runs)
        cpu = statistics.median(r["cpu_ms"] for r in runs)
        print(f"| {tree} | {label} | {kind} | {rate:,.0f} | {rate / processes[label]:,.0f} | "
              f"{cpu:.2f} | {1000 / cpu:,.0f} | "
              f"{statistics.median(r['pg_ms'] for r in runs):.2f} |")


def main() -> None:
    args = parse_args()
    codes = [code.resolve() for code in args.code or [ROOT]]
    phases = set(args.phases.split(","))
    with private_server(settings={"shared_buffers": "1GB"}) as server:
        if "web" in phases:
            web_phase(args, server, codes)
        if "deliveries" in phases:
            deliveries_phase(args, server, codes)


if __name__ == "__main__":
    main()
