"""The install's click lookup alone, on one connection: PostgreSQL backend CPU per execution of
the waterfall's device, referrer and network parts (tracking/sql.py's statement shape, a
prepared statement with a generic plan, as the service runs it) on the hot store as a plain
table, in day partitions and in week partitions (docs/benchmarks.md, "Week partitions of the
hot store").

    .venv/bin/python bench/lookup_partitions.py --database postgres://postgres@127.0.0.1:5432/x

The database is dropped and made again (it must be one of your own). Three tables with the hot
store's lookup columns and indexes hold the same --clicks clicks of the last 6 days: plain; a
partition per UTC day from 7 days ago to 4 days ahead and a default (what beat keeps on day
partitions); a partition per ISO week over the same days and a default. Each round runs
--executions lookups (random devices and networks of the loaded clicks, a referrer's click by
id in half of them, the 7-day window ending now) against each table in turn, the order reversed
every round, and reads the backend's user and system CPU from /proc around them (the server
must run on this machine). Not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

COLUMNS = ("id uuid NOT NULL, app_id uuid NOT NULL, clicked_at timestamptz NOT NULL, "
           "media_source text NOT NULL DEFAULT 'fb', campaign_id text NOT NULL DEFAULT 'c', "
           "adset text NOT NULL DEFAULT '', ad text NOT NULL DEFAULT '', advertising_id text, "
           "ip inet, ip_prefix text NOT NULL, fingerprint text NOT NULL DEFAULT '', "
           "os_family text NOT NULL DEFAULT 'ios', os_version text NOT NULL DEFAULT '17', "
           "device_model text NOT NULL DEFAULT 'iPhone', accept_language text NOT NULL "
           "DEFAULT 'en', link_id uuid")
CANDIDATES = ("id, clicked_at, media_source, campaign_id, adset, ad, advertising_id, host(ip), "
              "fingerprint, os_family, os_version, device_model, accept_language, link_id")
LOOKUP = (
    "(SELECT 'device', {c} FROM {t} WHERE app_id = $1 AND advertising_id = $2 AND "
    "clicked_at >= $3 AND clicked_at <= $4 ORDER BY clicked_at DESC LIMIT 20) UNION ALL "
    "SELECT 'referrer', {c} FROM {t} WHERE app_id = $1 AND id = $5 AND clicked_at >= $3 AND "
    "clicked_at <= $4 UNION ALL "
    "(SELECT 'network', {c} FROM {t} WHERE app_id = $1 AND ip_prefix = $6 AND clicked_at >= $3 "
    "AND clicked_at <= $4 ORDER BY clicked_at DESC LIMIT 50)")
ARGS = "%s::uuid, %s::text, %s::timestamptz, %s::timestamptz, %s::uuid, %s::text"
TICKS = 100  # USER_HZ


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True)
    parser.add_argument("--clicks", type=int, default=200_000)
    parser.add_argument("--executions", type=int, default=4_000)
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def recreate(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")


def ranges(today, span: int):
    """[first, last) of each partition from 7 days ago to 4 days ahead, `span` days each."""
    first = today - timedelta(days=7)
    if span == 7:
        first -= timedelta(days=first.weekday())
    while first <= today + timedelta(days=4):
        yield first, first + timedelta(days=span)
        first += timedelta(days=span)


def build(conn, today) -> None:
    for table, span in (("hot_plain", None), ("hot_day", 1), ("hot_week", 7)):
        tail = " PARTITION BY RANGE (clicked_at)" if span else ""
        conn.execute(f"CREATE TABLE {table} ({COLUMNS}){tail}")
        if span:
            for first, last in ranges(today, span):
                conn.execute(f"CREATE TABLE {table}_{first:%Y%m%d} PARTITION OF {table} FOR "
                             f"VALUES FROM ('{first} 00:00+00') TO ('{last} 00:00+00')")
            conn.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
        conn.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (id, clicked_at)")
        conn.execute(f"CREATE INDEX ON {table} (app_id, advertising_id, clicked_at)")
        conn.execute(f"CREATE INDEX ON {table} (app_id, ip_prefix, clicked_at)")
        conn.execute(f"CREATE INDEX ON {table} (clicked_at)")


def load(conn, app_id, now, clicks: int):
    rng = random.Random(7)
    rows = []
    for _ in range(clicks):
        at = now - timedelta(seconds=rng.uniform(0, 6 * 86400))
        prefix = f"10.{rng.randrange(200)}.{rng.randrange(50)}.0"
        rows.append((uuid.uuid4(), app_id, at, f"dev-{rng.randrange(clicks // 4)}",
                     prefix[:-1] + str(rng.randrange(1, 250)), prefix))
    for table in ("hot_plain", "hot_day", "hot_week"):
        with conn.cursor().copy(f"COPY {table} (id, app_id, clicked_at, advertising_id, ip, "
                                "ip_prefix) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        conn.execute(f"VACUUM (ANALYZE) {table}")
    return rows


def backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run(conn, pid, table, rows, app_id, now, executions, rng) -> float:
    """Backend CPU µs per lookup over `executions` lookups."""
    since = now - timedelta(days=7)
    before = backend_cpu(pid)
    for n in range(executions):
        row = rng.choice(rows)
        referrer = rng.choice(rows)[0] if n % 2 else uuid.uuid4()
        conn.execute(f"EXECUTE look_{table}({ARGS})",
                     [app_id, row[3], since, now, referrer, row[5]]).fetchall()
    return (backend_cpu(pid) - before) / executions * 1e6


def main() -> None:
    args = parse_args()
    recreate(args.database)
    now = datetime.now(UTC)
    app_id = uuid.uuid4()
    # EXECUTE takes no bound parameters: the values are written into it (ClientCursor).
    with psycopg.connect(args.database, autocommit=True,
                         cursor_factory=psycopg.ClientCursor) as conn:
        build(conn, now.date())
        rows = load(conn, app_id, now, args.clicks)
        conn.execute("SET plan_cache_mode = force_generic_plan")
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        tables = ["hot_plain", "hot_day", "hot_week"]
        for table in tables:
            conn.execute(f"PREPARE look_{table}(uuid, text, timestamptz, timestamptz, uuid, "
                         f"text) AS {LOOKUP.format(c=CANDIDATES, t=table)}")
            run(conn, pid, table, rows, app_id, now, 200, random.Random(1))  # warm
            plan = conn.execute(
                f"EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) EXECUTE look_{table}({ARGS})",
                [app_id, rows[0][3], now - timedelta(days=7), now, rows[1][0], rows[0][5]],
            ).fetchall()
            scans = sum(1 for (line,) in plan if "Index Scan" in line or "Index Only" in line)
            print(f"{table}: index scans in one lookup's plan: {scans}")
        results = {table: [] for table in tables}
        for round_number in range(args.rounds):
            order = tables if round_number % 2 == 0 else tables[::-1]
            for table in order:
                results[table].append(run(conn, pid, table, rows, app_id, now,
                                          args.executions, random.Random(round_number)))
            print("round", round_number + 1, {t: round(results[t][-1]) for t in tables})
        plain = results["hot_plain"]
        for table in tables:
            ratios = [value / base for value, base in zip(results[table], plain, strict=True)]
            print(f"{table}: median {statistics.median(results[table]):.0f} µs per lookup, "
                  f"against plain {statistics.median(ratios):.2f}x "
                  f"({', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
