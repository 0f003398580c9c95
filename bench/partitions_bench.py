"""Day partitions (docs/decisions.md, "Day partitions (PostgreSQL)"), measured on the code itself:
the time, WAL and effect on concurrent clicks of pruning one day of expired clicks, and the hot
store's size and dead rows after simulated weeks of traffic, for each code tree given with --code
(the code before day partitions, plain tables and batched deletes, and the partitioned code that
drops whole days).

    .venv/bin/python bench/partitions_bench.py --code /work/before --code /work/main
    .venv/bin/python bench/partitions_bench.py --code /work/before --code /work/main \\
        --expired 100000 --live 50000 --rounds 1 --week-clicks 20000 --week-events 10000 \\
        --day-seconds 0                                                    # quick look

Each tree migrates its own database on a private PostgreSQL server (port 5497, PostgreSQL's
default settings, autovacuum on, 1 GB shared_buffers) and runs its own `manage.py
prune_clicks`, timed inside the process (`call_command`, so Django's start-up is not counted);
both trees run on this virtualenv. A tree whose `tracking_click` is partitioned gets its day
partitions, the past days' too, from its own `partitions_ensure` (the function beat calls,
given the day), reached through `manage.py shell`.

1. Prune (--rounds, trees in rotation, the order reversed each round): the hot store holds
   --live clicks over the last 7 days; each round loads --expired clicks dated on one day 9
   days ago, runs VACUUM (ANALYZE) and CHECKPOINT (a table that grew click by click has been
   vacuumed and checkpointed), and prunes. Measured: the prune's time, the WAL it wrote
   and, from a thread inserting one click at a time (hot store and archive in one statement,
   as tracking/sql.py does) throughout, the clicks per second and slowest insert during the
   prune against the 5 seconds before it. The WAL is the server's (pg_current_wal_lsn before
   and after; nothing else writes there) less the concurrent clicks' own, at the bytes per
   click they wrote in the 5 seconds before.
2. A fortnight (--days, default 14): every simulated day each tree's database gets the day's
   clicks (hot store and archive) and events, stamped with that day's times in time order,
   written in statements of 10,000 rows, then the daily prune, run as if it were the next
   morning (`--retention-days` shifted so the cutoff falls 7 days and 1 hour before then). The
   first 7 days fill the window; each of the last 7 is given --day-seconds (default 60,
   autovacuum's naptime) so autovacuum, as configured by default, gets its look at each
   database every day. Reported: the hot store's total size (table and indexes, summed over
   its partitions), heap and index sizes, live rows, dead tuples (pg_stat_user_tables) and
   bytes per live row, with the prune times of the last 7 days; and the archive's and the
   events' size and bytes per row.

Not a test: nothing here asserts a timing. Needs PostgreSQL's server binaries.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path

import psycopg
from harness import (
    app_create,
    code_env,
    code_label,
    migrate,
    private_server,
    recreate_database,
    shell,
)

EXPIRED_DAY_AGE = 9  # days: wholly past the 7-day window and the 1-hour slack
HOT = "tracking_click"
UA = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/120.0.0.0 Mobile Safari/537.36")
CLICK_COLUMNS = ("id, app_id, campaign_id, media_source, adset, ad, advertising_id, ip, "
                 "ip_prefix, user_agent, accept_language, os_family, os_version, "
                 "device_model, fingerprint, clicked_at, link_id")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, action="append", required=True,
                        help="a tree of the service (repeat: each is measured alike)")
    parser.add_argument("--phases", default="prune,week")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--expired", type=int, default=1_000_000,
                        help="clicks of the expired day each prune removes")
    parser.add_argument("--live", type=int, default=1_000_000,
                        help="clicks within the window, kept by every prune")
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--week-clicks", type=int, default=200_000, help="clicks a day")
    parser.add_argument("--week-events", type=int, default=200_000, help="events a day")
    parser.add_argument("--day-seconds", type=float, default=60.0)
    parser.add_argument("--shared-buffers", default="1GB")
    return parser.parse_args()


# --- Generated traffic, written by the server (Python would take longer than the prune) ----

def _click_rows(app_id: str, first: int, count: int, start: datetime, step: float) -> tuple:
    """SELECT of `count` clicks numbered from `first`, the n-th at start + n * step seconds,
    each with its own advertising id, ten to a /24 (as bench/hotpaths.py loads them), ids
    time-ordered like the service's uuid7."""
    sql = (
        "SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' ||"
        " substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid, %(app)s::uuid,"
        " 'campaign' || (n %% 50), 'network' || (n %% 7), '', '',"
        " '00000001-0000-4000-8000-' || lpad(n::text, 12, '0'),"
        " (prefix || '.' || (n %% 254 + 1))::inet, prefix || '.0/24', %(ua)s, 'en-US',"
        " 'Android', '14', 'SM-S918B', h, t, NULL::uuid"
        " FROM (SELECT n, md5(n::text) AS h,"
        "  %(start)s::timestamptz + (n - %(first)s) * %(step)s * interval '1 second' AS t,"
        "  (82 + net / 62500) || '.' || (net / 250 %% 250) || '.' || (net %% 250) AS prefix"
        "  FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n,"
        "  LATERAL (SELECT n %% 100000000 / 10 AS net) AS network) AS s")
    return sql, {"app": app_id, "ua": UA, "start": start, "step": step, "first": first,
                 "last": first + count - 1}


def insert_clicks(conn, app_id: str, *, first: int, count: int, start: datetime,
                  seconds: float, archive: bool, chunk: int = 10_000) -> None:
    step = seconds / count
    for offset in range(0, count, chunk):
        n = min(chunk, count - offset)
        select, params = _click_rows(app_id, first + offset, n,
                                     start + timedelta(seconds=offset * step), step)
        if archive:  # both stores in one statement, as tracking/sql.py writes a click
            conn.execute(f"WITH hot AS (INSERT INTO {HOT} ({CLICK_COLUMNS}) {select} "
                         f"RETURNING {CLICK_COLUMNS}) INSERT INTO tracking_clickarchive "
                         f"({CLICK_COLUMNS}) SELECT {CLICK_COLUMNS} FROM hot", params)
        else:
            conn.execute(f"INSERT INTO {HOT} ({CLICK_COLUMNS}) {select}", params)
        conn.commit()


def insert_events(conn, app_id: str, *, first: int, count: int, start: datetime,
                  seconds: float, chunk: int = 10_000) -> None:
    step = seconds / count
    for offset in range(0, count, chunk):
        conn.execute(
            "INSERT INTO tracking_event (app_id, device_id, event_id, event_name, properties,"
            " session_id, occurred_at, received_at, revenue_amount, revenue_currency)"
            " SELECT %(app)s::uuid, '00000001-0000-4000-8000-' || lpad((n / 20)::text, 12, '0'),"
            " 'ev-' || n, 'event_' || (n %% 8),"
            " jsonb_build_object('level', n %% 40, 'screen', 'main', 'score', n %% 1000),"
            " md5((n / 20)::text)::uuid, t, t + interval '2 seconds',"
            " CASE WHEN n %% 20 = 0 THEN 4.99 END, CASE WHEN n %% 20 = 0 THEN 'USD' END"
            " FROM (SELECT n, %(start)s::timestamptz + (n - %(first)s) * %(step)s"
            "  * interval '1 second' AS t"
            "  FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n) AS s",
            {"app": app_id, "start": start + timedelta(seconds=offset * step), "step": step,
             "first": first + offset, "last": first + offset + min(chunk, count - offset) - 1})
        conn.commit()


# --- A tree of the service and its database -------------------------------------------------

@dataclass(frozen=True)
class Prune:
    started: float  # time.time() in the pruning process
    ended: float
    said: str  # the command's last line

    @property
    def seconds(self) -> float:
        return self.ended - self.started


@dataclass
class Tree:
    code: Path
    database: str
    label: str = ""
    app_id: str = ""
    partitioned: bool = False
    prune_seconds: list[float] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return code_env(self.database)

    def set_up(self) -> None:
        recreate_database(self.database)
        migrate(self.code, self.env())
        _, self.app_id, _ = app_create(self.code, self.env())
        with psycopg.connect(self.database) as conn:
            self.partitioned = conn.execute(
                "SELECT relkind = 'p' FROM pg_class WHERE relname = %s", [HOT]).fetchone()[0]
        kind = "day partitions" if self.partitioned else "plain"
        self.label = f"{code_label(self.code)} ({kind})"

    def ensure_days(self, first: date, last: date) -> None:
        """Day partitions from `first` to `last` (each of the three tables), through the
        tree's own code; nothing for plain tables."""
        if not self.partitioned:
            return
        # What beat makes on a given day: that day's partitions and AHEAD_DAYS after it.
        shell(self.code, self.env(), (
            "from datetime import UTC, date, datetime, time, timedelta\n"
            "from tracking.partition_sql import partitions_ensure\n"
            "from tracking.partitions import AHEAD_DAYS\n"
            f"day = date.fromisoformat('{first}')\n"
            f"while day <= date.fromisoformat('{last}'):\n"
            "    partitions_ensure(now=datetime.combine(day, time(12), UTC))\n"
            "    day += timedelta(days=AHEAD_DAYS + 1)\n"))

    def prune(self, *, retention_days: int = 7) -> Prune:
        """The tree's own `prune_clicks`, timed in its process."""
        out = shell(self.code, self.env(), (
            "import io, time\n"
            "from django.core.management import call_command\n"
            "out = io.StringIO()\n"
            "print('STARTED', time.time())\n"
            f"call_command('prune_clicks', retention_days={retention_days}, stdout=out)\n"
            "print('ENDED', time.time())\n"
            "print('LAST', out.getvalue().strip().splitlines()[-1])\n"))
        lines = dict(line.split(" ", 1) for line in out.splitlines()
                     if line.startswith(("STARTED ", "ENDED ", "LAST ")))
        return Prune(float(lines["STARTED"]), float(lines["ENDED"]), lines["LAST"])


# The tables holding a relation's rows: its partitions, or itself when it has none (for a
# plain table pg_partition_tree lists nothing).
LEAVES = ("SELECT relid FROM pg_partition_tree(%s) WHERE isleaf UNION "
          "SELECT oid FROM pg_class WHERE oid = %s::regclass AND relkind = 'r'")


def stored(url: str, table: str = HOT) -> dict:
    """Size, rows and dead tuples of a table, summed over its partitions."""
    with psycopg.connect(url) as conn:
        total, heap, indexes, partitions = conn.execute(
            "SELECT sum(pg_total_relation_size(relid)), sum(pg_relation_size(relid)),"
            " sum(pg_indexes_size(relid)), count(*) FROM (" + LEAVES + ") AS leaves",
            [table, table]).fetchone()
        dead, autovacuums, vacuums = conn.execute(
            "SELECT sum(n_dead_tup), sum(autovacuum_count), sum(vacuum_count)"
            " FROM pg_stat_user_tables WHERE relid IN (" + LEAVES + ")",
            [table, table]).fetchone()
        live = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return {"total": int(total or 0), "heap": int(heap or 0), "indexes": int(indexes or 0),
            "partitions": partitions, "dead": int(dead or 0), "live": live,
            "autovacuums": int(autovacuums or 0), "vacuums": int(vacuums or 0)}


# --- Clicks arriving while the prune runs ----------------------------------------------------

class ClickWriter(threading.Thread):
    """One connection inserting clicks one statement at a time, committed without waiting
    for the WAL flush, as the service writes them; keeps (end, seconds) of every insert."""

    def __init__(self, url: str, app_id: str):
        super().__init__(daemon=True)
        self.url, self.app_id = url, app_id
        self.done: list[tuple[float, float]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        n = 10**12  # numbers no generated click uses
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stopping.is_set():
                select, params = _click_rows(self.app_id, n, 1, datetime.now(UTC), 0.0)
                started = time.time()  # the prune's process reads the same clock
                conn.execute(
                    "WITH async_commit AS (SELECT set_config('synchronous_commit', 'off',"
                    f" true)), hot AS (INSERT INTO {HOT} ({CLICK_COLUMNS}) {select} RETURNING"
                    f" {CLICK_COLUMNS}) INSERT INTO tracking_clickarchive ({CLICK_COLUMNS})"
                    f" SELECT {CLICK_COLUMNS} FROM hot, async_commit", params)
                ended = time.time()
                self.done.append((ended, ended - started))
                n += 1

    def count(self, start: float, end: float) -> int:
        return sum(1 for e, _ in self.done if start <= e <= end)

    def between(self, start: float, end: float) -> tuple[float, float]:
        """Inserts per second and the slowest insert among those that ended in [start, end]
        or were under way at its end."""
        inside = [s for e, s in self.done if start <= e <= end or e - s <= end < e]
        if not inside:
            return 0.0, 0.0
        return len(inside) / max(end - start, 1e-9), max(inside)


def wal_lsn(url: str) -> str:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]


def wal_bytes(url: str, start: str, end: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT pg_wal_lsn_diff(%s, %s)", [end, start]).fetchone()[0])


def prune_round(tree: Tree, args, round_no: int) -> dict:
    today = datetime.now(UTC).date()
    expired = today - timedelta(days=EXPIRED_DAY_AGE)
    tree.ensure_days(expired, today + timedelta(days=3))
    with psycopg.connect(tree.database) as conn:
        insert_clicks(conn, tree.app_id, first=round_no * args.expired, count=args.expired,
                      start=datetime.combine(expired, day_time(), UTC), seconds=86_399.0,
                      archive=False)
    with psycopg.connect(tree.database, autocommit=True) as conn:
        conn.execute(f"VACUUM (ANALYZE) {HOT}")
        conn.execute("CHECKPOINT")
    writer = ClickWriter(tree.database, tree.app_id)
    writer.start()
    time.sleep(1.0)  # its connection made, its statement prepared
    quiet_lsn, quiet_from = wal_lsn(tree.database), time.time()
    time.sleep(5.0)
    lsn, launched = wal_lsn(tree.database), time.time()
    prune = tree.prune()
    wal, returned = wal_bytes(tree.database, lsn, wal_lsn(tree.database)), time.time()
    time.sleep(1.0)
    writer.stopping.set()
    writer.join()
    # The clicks' own WAL, at the rate they wrote it before the prune, is not the prune's.
    per_click = wal_bytes(tree.database, quiet_lsn, lsn) / max(writer.count(quiet_from,
                                                                             launched), 1)
    wal -= round(per_click * writer.count(launched, returned))
    before_rate, before_slowest = writer.between(launched - 5.0, launched)
    # A prune of milliseconds would give a rate over a window too short to mean anything:
    # the rate is taken over at least the second that follows the prune's start.
    during_rate, during_slowest = writer.between(prune.started,
                                                 max(prune.ended, prune.started + 1.0))
    with psycopg.connect(tree.database, autocommit=True) as conn:
        left = conn.execute(f"SELECT count(*) FROM {HOT} WHERE clicked_at < %s",
                            [datetime.combine(expired + timedelta(days=1), day_time(), UTC)]
                            ).fetchone()[0]
        conn.execute(f"VACUUM {HOT}")  # each round starts from a vacuumed table
    result = {"seconds": prune.seconds, "wal": wal, "said": prune.said, "left": left,
              "rate_before": before_rate, "rate_during": during_rate,
              "slowest_before": before_slowest, "slowest_during": during_slowest}
    print(f"  [prune round {round_no + 1}] {tree.label}: {prune.seconds:.3f} s, WAL "
          f"{wal / 2**20:.1f} MB, clicks/s {before_rate:.0f} before -> {during_rate:.0f} "
          f"during (slowest {before_slowest * 1000:.1f} -> {during_slowest * 1000:.1f} ms), "
          f"{left} expired left; {prune.said!r}", flush=True)
    return result


def prune_phase(trees: list[Tree], args) -> None:
    now = datetime.now(UTC)
    for tree in trees:
        tree.set_up()
        tree.ensure_days((now - timedelta(days=EXPIRED_DAY_AGE)).date(),
                         (now + timedelta(days=3)).date())
        with psycopg.connect(tree.database) as conn:
            insert_clicks(conn, tree.app_id, first=10**11, count=args.live,
                          start=now - timedelta(days=7), seconds=7 * 86_400 - 60,
                          archive=True)
        print(f"== {tree.label}: {args.live:,} clicks in the window", flush=True)
    for round_no in range(args.rounds):
        order = trees if round_no % 2 == 0 else trees[::-1]
        for tree in order:
            tree.rounds.append(prune_round(tree, args, round_no))
    print(f"\nPrune of one day of {args.expired:,} expired clicks beside {args.live:,} in the "
          f"window (median of {args.rounds} rounds):\n")
    print("| tree | prune s | WAL MB | clicks/s before | during | slowest insert ms before "
          "| during | expired left |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for tree in trees:
        r = tree.rounds

        def med(key, rows=r):
            return statistics.median(row[key] for row in rows)
        print(f"| {tree.label} | {med('seconds'):.3f} | {med('wal') / 2**20:.1f} | "
              f"{med('rate_before'):.0f} | {med('rate_during'):.0f} | "
              f"{med('slowest_before') * 1000:.1f} | {med('slowest_during') * 1000:.1f} | "
              f"{max(row['left'] for row in r)} |")
    if len(trees) == 2:
        ratios = [a["seconds"] / b["seconds"] for a, b in
                  zip(trees[0].rounds, trees[1].rounds, strict=True)]
        # No WAL ratio: the smaller figure can be within the error of the clicks' subtraction.
        print(f"\n{trees[0].label} over {trees[1].label}: median of the rounds' prune-time "
              f"ratios {statistics.median(ratios):,.0f}x")


def week_phase(trees: list[Tree], args) -> None:
    today = datetime.now(UTC).date()
    first_day = today - timedelta(days=args.days)
    for tree in trees:
        tree.set_up()
        tree.ensure_days(first_day, today + timedelta(days=3))
    print(f"== {args.days} simulated days from {first_day}: {args.week_clicks:,} clicks and "
          f"{args.week_events:,} events a day, the daily prune", flush=True)
    for i in range(args.days):
        day = first_day + timedelta(days=i)
        paced = i >= args.days - 7
        began = time.monotonic()
        for tree in trees if i % 2 == 0 else trees[::-1]:
            with psycopg.connect(tree.database) as conn:
                start = datetime.combine(day, day_time(), UTC)
                insert_clicks(conn, tree.app_id, first=i * args.week_clicks,
                              count=args.week_clicks, start=start, seconds=86_399.0,
                              archive=True)
                insert_events(conn, tree.app_id, first=i * args.week_events,
                              count=args.week_events, start=start, seconds=86_399.0)
            # The prune of the next morning: the cutoff is 7 days and 1 hour before the
            # simulated now, the time of day of the real one on the day after `day`.
            prune = tree.prune(retention_days=7 + (today - day).days - 1)
            if paced:
                tree.prune_seconds.append(prune.seconds)
            print(f"  [{day}] {tree.label}: prune {prune.seconds:.3f} s; {prune.said}",
                  flush=True)
        if paced:
            time.sleep(max(0.0, args.day_seconds - (time.monotonic() - began)))
    print(f"\nHot store after {args.days} simulated days ({args.week_clicks:,} clicks a day, "
          f"the last 7 days {args.day_seconds:.0f} s each for autovacuum):\n")
    print("| tree | total MB | heap MB | indexes MB | partitions | live rows | dead tuples "
          "| bytes per live row | autovacuums | prune s (median of the last 7 days) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tree in trees:
        s = stored(tree.database)
        print(f"| {tree.label} | {s['total'] / 2**20:.1f} | {s['heap'] / 2**20:.1f} | "
              f"{s['indexes'] / 2**20:.1f} | {s['partitions']} | {s['live']:,} | "
              f"{s['dead']:,} | {s['total'] / max(s['live'], 1):.0f} | {s['autovacuums']} | "
              f"{statistics.median(tree.prune_seconds):.3f} |")
    print("\nThe append-only tables beside it (kept whole: what a day of traffic adds):\n")
    print("| tree | table | total MB | indexes MB | rows | bytes per row |\n"
          "|---|---|---:|---:|---:|---:|")
    for tree in trees:
        for table in ("tracking_clickarchive", "tracking_event"):
            s = stored(tree.database, table)
            print(f"| {tree.label} | {table} | {s['total'] / 2**20:.1f} | "
                  f"{s['indexes'] / 2**20:.1f} | {s['live']:,} | "
                  f"{s['total'] / max(s['live'], 1):.0f} |")


def main() -> None:
    args = parse_args()
    phases = set(args.phases.split(","))
    with private_server(settings={"shared_buffers": args.shared_buffers}) as server:
        for phase, run in (("prune", prune_phase), ("week", week_phase)):
            if phase not in phases:
                continue
            run([Tree(code.resolve(), server.database(f"attr_{phase}_{i}"))
                 for i, code in enumerate(args.code)], args)


if __name__ == "__main__":
    main()
