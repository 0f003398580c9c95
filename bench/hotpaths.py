"""Hot-path benchmark: /clicks, a link's /l/{code}, /installs and /events against a bare Django
baseline.

Loads clicks with COPY into two fresh databases (10,000 and 1,000,000), starts gunicorn
(gthread, 2 workers x 4 threads, as in production) for the service on each, on PostgreSQL and
Redis, and for bench/baseline, drives load with wrk from a second process, and runs the targets
in rotation (one run each per round) so the machine's drift hits them alike. First installs
with either click table beside the baseline (the install p99 comparison: each round's ratio of
the two p99s, under the same conditions), flat out and paced well below saturation, then
every hot path on the large table. Prints
requests/s, p99 and the ratio to the baseline of the same round; summaries are medians over
rounds.

    .venv/bin/python bench/hotpaths.py --rounds 5      # as recorded in docs/benchmarks.md
    .venv/bin/python bench/hotpaths.py --large 100000 --rounds 1 --duration 5   # quick look

Needs wrk (`apt-get install wrk`), PostgreSQL's server binaries and Redis. Starts its own
PostgreSQL server on port 5499 (1 GB of shared_buffers, the hot store prewarmed into them;
`--postgres URL` uses an existing server instead) and uses Redis dbs 13 and 12. Not a test:
nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
GUNICORN_ARGS = ["-k", "gthread", "--limit-request-line", "8190", "--log-level", "warning"]
SERVICE_PORT, BASELINE_PORT, SMALL_PORT = 8101, 8102, 8103


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (both servers)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--postgres", metavar="URL",
                        help="an existing server (postgres://user@host:port) instead of the "
                             "private one this script starts and removes")
    parser.add_argument("--shared-buffers", default="1GB",
                        help="the private server's shared_buffers (default: %(default)s)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--small-redis", default="redis://127.0.0.1:6379/12")
    return parser.parse_args()


PRIVATE_POSTGRES_PORT = 5499
HOT_STORE = ("tracking_click", "tracking_click_pkey", "click_device_idx", "click_network_idx")
# Every relation holding the hot store's rows and indexes: the tables themselves, or, on
# time partitions (docs/decisions.md, "Time partitions (PostgreSQL)"), each partition and each
# partition's indexes.
HOT_STORE_STORAGE = (
    "SELECT c.oid::regclass::text FROM pg_class c WHERE c.relkind IN ('r', 'i') AND "
    "(c.oid = ANY(%(names)s::regclass[]) OR c.oid IN (SELECT inhrelid FROM pg_inherits "
    "WHERE inhparent = ANY(%(names)s::regclass[])))")


@contextlib.contextmanager
def bench_postgres(args):
    """The PostgreSQL server for the run: by default a private one, configured as production
    would be for a million-click hot store (shared_buffers holding it and its indexes; the
    other settings as this machine's server has them, autovacuum off included), and removed
    afterwards. On the machine's own server (128 MB of shared_buffers) the million-click
    lookups read from disk: the host reclaims page cache that has not been touched for a
    minute (docs/benchmarks.md)."""
    if args.postgres:
        yield args.postgres.rstrip("/")
        return
    bindir = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 check=True).stdout.strip())
    data = Path(tempfile.mkdtemp(prefix="attr-bench-pg-"))
    as_postgres = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(data, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    options = (f"-p {PRIVATE_POSTGRES_PORT} -c listen_addresses=127.0.0.1 "
               f"-c unix_socket_directories={data} -c shared_buffers={args.shared_buffers} "
               "-c autovacuum=off")
    subprocess.run([*as_postgres, bindir / "initdb", "-D", data, "-A", "trust", "-U",
                    "postgres", "--no-sync"], check=True, capture_output=True)
    subprocess.run([*as_postgres, bindir / "pg_ctl", "-D", data, "-l", data / "server.log",
                    "-o", options, "-w", "start"], check=True, capture_output=True)
    try:
        yield f"postgres://postgres@127.0.0.1:{PRIVATE_POSTGRES_PORT}"
    finally:
        subprocess.run([*as_postgres, bindir / "pg_ctl", "-D", data, "-m", "fast", "-w",
                        "stop"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


def service_env(args, database: str, redis_url: str) -> dict:
    env = dict(os.environ)
    env.update(DATABASE_URL=database, REDIS_URL=redis_url, DEBUG="0",
               SECRET_KEY="bench-secret-key-bench-secret-key-0000", ALLOWED_HOSTS="127.0.0.1",
               NUM_PROXIES="1", LOG_LEVEL="WARNING",
               DJANGO_SETTINGS_MODULE="attribution_site.settings")
    return env


def recreate_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def setup_app(env: dict) -> tuple[str, str]:
    """An organization, app and API key, made through the services the API uses."""
    code = (
        "from accounts.services import account_signup\n"
        "from apps_registry.services import app_create, api_key_create\n"
        "u = account_signup(email='bench@example.com', password='bench-password',"
        " name='Bench', company_name='Bench')\n"
        "a = app_create(organization_id=u.organization_id, name='Bench', platform='android',"
        " package_name='com.bench.app',"
        " play_store_url='https://play.google.com/store/apps/details?id=com.bench.app')\n"
        "k, full = api_key_create(app=a)\n"
        "from links.models import Link\n"
        "Link.objects.create(app=a, code='bench', media_source='network1',"
        " campaign_id='campaign1', adset='s1', ad='a1')\n"
        "print(a.id, full)\n"
    )
    out = subprocess.run([PYTHON, "manage.py", "shell", "-c", code], cwd=ROOT, env=env,
                         check=True, capture_output=True, text=True).stdout.split()
    return out[-2], out[-1]


CLICKS_PER_NETWORK = 10


def network_prefix(net: int) -> str:
    """The /24 numbered `net` (installs.lua numbers them the same way)."""
    return f"{82 + net // 62500}.{net // 250 % 250}.{net % 250}"


def load_clicks(url: str, app_id: str, start: int, stop: int) -> None:
    """Clicks start..stop-1 into the hot store (COPY) over the last 6 days, each with its own
    advertising id (the one installs.lua asks for), ten to a /24 network at any table size, so
    a fingerprint lookup finds the same number of candidates with 10,000 or 1,000,000 clicks
    and the comparison measures the table's size, not its density."""
    import psycopg

    from tracking.fingerprint import click_fingerprint

    now = datetime.now(UTC)
    columns = ("id", "app_id", "campaign_id", "media_source", "adset", "ad", "advertising_id",
               "ip", "ip_prefix", "user_agent", "accept_language", "os_family", "os_version",
               "device_model", "fingerprint", "clicked_at")
    ua = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
          "Chrome/120.0.0.0 Mobile Safari/537.36")
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        with cur.copy(f"COPY tracking_click ({', '.join(columns)}) FROM STDIN") as copy:
            for n in range(start, stop):
                net = n // CLICKS_PER_NETWORK
                prefix = network_prefix(net)
                ip = f"{prefix}.{n % 254 + 1}"
                copy.write_row((
                    uuid.uuid4(), app_id, f"campaign{n % 50}", f"network{n % 7}", "", "",
                    f"00000001-0000-4000-8000-{n + 1:012d}", ip, f"{prefix}.0/24", ua,
                    "en-US", "Android", "14", "SM-S918B", click_fingerprint(ip, ua),
                    now - timedelta(seconds=(n * 7919) % (6 * 86400))))
        conn.commit()
    # A table that grew click by click has been vacuumed and checkpointed along the way; one
    # filled by COPY has not: its first readers would set every row's hint bits (page writes in
    # the middle of the measurement), autovacuum would compete for the same two cores, and the
    # checkpoint that the load's gigabyte of WAL sets off would write it all out during the
    # first rounds.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) tracking_click")
        conn.execute("CHECKPOINT")
        # What a server that has been answering lookups holds in its buffers (COPY and VACUUM
        # go through a small ring of buffers and leave it cold).
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        relations = conn.execute(HOT_STORE_STORAGE, {"names": list(HOT_STORE)}).fetchall()
        for (relation,) in relations:
            conn.execute("SELECT pg_prewarm(%s)", [relation])


def start(cmd: list[str], env: dict, cwd: Path, port: int, args) -> subprocess.Popen:
    probe = socket.socket()
    try:  # a server left behind by an earlier run would answer instead of this one
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} is already in use: stop what runs there first")
    finally:
        probe.close()
    process = subprocess.Popen([*cmd, "-b", f"127.0.0.1:{port}", *GUNICORN_ARGS,
                                "-w", str(args.workers), "--threads", str(args.threads)], cwd=cwd,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    path = "/r" if port == BASELINE_PORT else "/healthz"
    for _ in range(100):
        try:  # http.client does not follow the baseline's redirect off the machine
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", path)
            connection.getresponse()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"server on port {port} did not start: {process.stderr.read()[-2000:]}")


def stop(process: subprocess.Popen) -> None:
    """Stop a server and its workers, whatever state they are in."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wrk(port: int, script: str, args, env: dict) -> dict:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{args.connections}", f"-d{args.duration}s", "--latency", "-s",
         str(ROOT / "bench" / "wrk" / script), f"http://127.0.0.1:{port}"],
        env=env, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = _ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    return {"rps": rps, "p99": p99, "bad": int(bad.group(1)) if bad else 0, "total": total}


def _ms(text: str) -> float:
    value, unit = float(re.match(r"[\d.]+", text).group()), re.sub(r"[\d.]", "", text)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def rotation(targets: dict, args, label: str, before=None) -> dict[str, list[dict]]:
    """targets: name -> (port, wrk script, wrk environment); `before(name)` runs before each
    measured run."""
    results: dict[str, list[dict]] = {name: [] for name in targets}
    warm_up = argparse.Namespace(**{**vars(args), "duration": 2})
    for port, script, env in targets.values():  # caches, connections, JIT-less warm-up
        wrk(port, script, warm_up, env)
    for round_no in range(1, args.rounds + 1):
        for name, (port, script, env) in targets.items():
            if before is not None:
                before(name)
            result = wrk(port, script, args, env)
            results[name].append(result)
            flag = f"  NON-2XX/3XX: {result['bad']}" if result["bad"] else ""
            print(f"  [{label} round {round_no}] {name:14s} {result['rps']:9.1f} req/s  "
                  f"p99 {result['p99']:8.2f} ms{flag}", flush=True)
    return results


def ratios(results, name) -> list[float]:
    return [r["rps"] / b["rps"] for r, b in zip(results[name], results["baseline"],
                                                        strict=True)]


def p99_figures(small: list[dict], large: list[dict]) -> tuple[float, float, float]:
    """Each table's median p99 and the median of the rounds' ratios. Both tables were served
    side by side in the same rounds, so each round's ratio compares them under the same
    machine conditions."""
    return (statistics.median(r["p99"] for r in small),
            statistics.median(r["p99"] for r in large),
            statistics.median(big["p99"] / little["p99"]
                              for big, little in zip(large, small, strict=True)))


def prepare(args, database: str, redis_url: str, clicks: int) -> tuple[dict, dict]:
    """A fresh database with one app, its key and `clicks` clicks: the service's environment
    and the wrk scripts' environment."""
    import redis

    env = service_env(args, database, redis_url)
    redis.Redis.from_url(redis_url).flushdb()
    recreate_database(database)
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                   check=True)
    app_id, key = setup_app(env)
    # The six days of clicks below go to partitions of their own (the hot store's weeks, the
    # archive's days), as live clicks would.
    since = (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
    subprocess.run([PYTHON, "manage.py", "partitions_ensure", "--since", since], cwd=ROOT,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    load_clicks(database, app_id, 0, clicks)
    return env, dict(os.environ, BENCH_APP_ID=app_id, BENCH_KEY=key, BENCH_CLICKS=str(clicks),
                     BENCH_NETWORKS=str(clicks // CLICKS_PER_NETWORK))


def main() -> None:
    args = parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    with bench_postgres(args) as server:
        args.database, args.small_database = f"{server}/attr_bench", f"{server}/attr_bench_small"
        measure(args)


def measure(args) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.update(service_env(args, args.database, args.redis))
    import django

    django.setup()
    print(f"== loading {args.small:,} and {args.large:,} clicks into two databases", flush=True)
    small_env, small_wrk = prepare(args, args.small_database, args.small_redis, args.small)
    large_env, large_wrk = prepare(args, args.database, args.redis, args.large)
    servers = [start([GUNICORN, "attribution_site.wsgi"], large_env, ROOT, SERVICE_PORT, args),
               start([GUNICORN, "attribution_site.wsgi"], small_env, ROOT, SMALL_PORT, args),
               start([GUNICORN, "baseline_site:application"],
                     dict(large_env, DJANGO_SETTINGS_MODULE="baseline_site"),
                     ROOT / "bench" / "baseline", BASELINE_PORT, args)]
    def settled(name: str) -> None:
        """Before every measured run: a checkpoint, so that no run pays for the writes of the
        one before it (events leave hundreds of thousands of dirty rows; without it, the
        baseline run that followed them lost half its speed in some rounds). In the size
        comparison, each installs run also starts with no installs stored, so both tables see
        first installs only and install tables of the same size."""
        import psycopg

        with psycopg.connect(args.database, autocommit=True) as conn:
            if name in ("installs small", "installs large", "paced small", "paced large"):
                with psycopg.connect(args.small_database if name.endswith("small")
                                     else args.database, autocommit=True) as target:
                    target.execute("TRUNCATE tracking_install, tracking_reengagement")
            conn.execute("CHECKPOINT")

    try:
        print("== installs with each click table vs baseline", flush=True)
        # Paced runs offer each table the same steady load, well below what the small table
        # serves flat out (each connection waits twice the time a request takes flat out, on
        # average), so their p99 is the service time's tail rather than the queue's.
        flat_out = wrk(SMALL_PORT, "installs.lua",
                       argparse.Namespace(**{**vars(args), "duration": 3}), small_wrk)["rps"]
        paced_rate = flat_out / 2
        delay = {"BENCH_DELAY_MS": f"{args.connections * 1000 / paced_rate:.1f}"}
        sizes = rotation({"baseline": (BASELINE_PORT, "baseline.lua", large_wrk),
                          "installs small": (SMALL_PORT, "installs.lua", small_wrk),
                          "installs large": (SERVICE_PORT, "installs.lua", large_wrk),
                          "paced small": (SMALL_PORT, "installs.lua", {**small_wrk, **delay}),
                          "paced large": (SERVICE_PORT, "installs.lua", {**large_wrk, **delay})},
                         args, "sizes", before=settled)
        print(f"== {args.large:,} clicks stored: every hot path vs baseline", flush=True)
        large = rotation({"baseline": (BASELINE_PORT, "baseline.lua", large_wrk),
                          "clicks": (SERVICE_PORT, "clicks.lua", large_wrk),
                          "links": (SERVICE_PORT, "links.lua", large_wrk),
                          "installs": (SERVICE_PORT, "installs.lua", large_wrk),
                          "events": (SERVICE_PORT, "events.lua", large_wrk)}, args, "large",
                         before=settled)
    finally:
        for server in servers:
            stop(server)

    out = io.StringIO()
    base = statistics.median(r["rps"] for r in large["baseline"])
    out.write(f"\nSummary (median of {args.rounds} rounds, {args.duration}s each, "
              f"wrk -t2 -c{args.connections}, gunicorn gthread -w {args.workers} --threads "
              f"{args.threads}; baseline {base:.0f} req/s; {args.large:,} clicks stored)\n")
    out.write("| endpoint | req/s | ratio to baseline | p99 ms | target |\n|---|---|---|---|---|\n")
    clicks_ratio = statistics.median(ratios(large, "clicks"))
    targets = {"clicks": ">= 0.30", "links": f">= 0.9 x clicks = {0.9 * clicks_ratio:.3f}",
               "installs": ">= 0.12", "events": ">= 4x baseline req/s in events/s"}
    for name in ("clicks", "links", "installs", "events"):
        rps = statistics.median(r["rps"] for r in large[name])
        ratio = statistics.median(ratios(large, name))
        p99 = statistics.median(r["p99"] for r in large[name])
        extra = f" ({rps * 100:.0f} events/s = {ratio * 100:.2f}x)" if name == "events" else ""
        out.write(f"| {name} | {rps:.0f}{extra} | {ratio:.3f} | {p99:.1f} | {targets[name]} |\n")
    offered = statistics.median(r["rps"] for r in sizes["paced small"] + sizes["paced large"])
    flat_small = statistics.median(r["rps"] for r in sizes["installs small"])
    for label, small_name, large_name in (
            ("\nInstall p99, flat out", "installs small", "installs large"),
            (f"Install p99, paced (about {offered:.0f} req/s offered to each, "
             f"{offered / flat_small:.0%} of the small table's flat-out rate)",
             "paced small", "paced large")):
        small_p99, large_p99, ratio = p99_figures(sizes[small_name], sizes[large_name])
        out.write(f"{label}: {small_p99:.1f} ms with {args.small:,} clicks, {large_p99:.1f} "
                  f"ms with {args.large:,}; median of the rounds' ratios {ratio:.2f}x "
                  "(target <= 1.2x)\n")
    out.write(f"Install ratio to baseline with {args.small:,} clicks: "
              f"{statistics.median(ratios(sizes, 'installs small')):.3f}; with {args.large:,}: "
              f"{statistics.median(ratios(sizes, 'installs large')):.3f}\n")
    print(out.getvalue())


if __name__ == "__main__":
    main()
