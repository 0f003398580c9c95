"""Analytics benchmark: every analytics endpoint and the CSV export on a large demo app.

Seeds an app with `manage.py seed_demo` into its own PostgreSQL database (dropped and
re-created unless --reuse), starts gunicorn (gthread, one worker so its memory can be read) on
that database and Redis db 14, logs in as the demo user and, for the 30 full days before today:
- requests each endpoint (and each attribution model) --repeat times, in rotation, and reports
  the median and 95th percentile of the full request (headers to last byte);
- streams each export type, counting rows, and reports rows per second and the worker's peak
  resident memory before and after (flat memory: the peak does not grow with the rows);
- times one rebuild of a day of each kind (what a repair or a backlog costs per day);
- with a worker and beat started the ordinary way (`celery -A attribution_site worker`,
  `... beat`), measures freshness: how long after an SDK click, install or revenue event, or
  a cost import, is answered the dashboard of today shows it (--samples of each, sequential,
  polled every 50 ms), and the endpoint timings above are taken while they run.

    .venv/bin/python bench/analytics_bench.py                       # 1M installs, 10M events
    .venv/bin/python bench/analytics_bench.py --installs 20000 --events 200000 \\
        --clicks 100000 --repeat 5                                   # a quick look
    .venv/bin/python bench/analytics_bench.py --reuse                # time again, no seeding

Not a test: nothing here asserts a timing. Results are printed as Markdown and written to
bench/results/analytics.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(PYTHON).with_name("gunicorn"))
PORT = 8111
ENDPOINTS = [("dashboard", {}), ("sources", {}), ("campaigns", {}), ("retention", {}),
             ("revenue", {}), ("attribution", {}), ("attribution", {"model": "first-touch"}),
             ("attribution", {"model": "linear"}), ("attribution", {"model": "time-decay"})]
EXPORTS = ("installs", "events", "revenue")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--installs", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--clicks", type=int, default=5_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--range-days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=30, help="requests per endpoint")
    parser.add_argument("--samples", type=int, default=30, help="freshness samples per kind")
    parser.add_argument("--skip-exports", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="keep the seeded database")
    parser.add_argument("--database",
                        default="postgres://postgres@127.0.0.1:5432/attr_bench_analytics")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    return parser.parse_args()


def service_env(args) -> dict:
    env = dict(os.environ)
    env.update(DATABASE_URL=args.database, REDIS_URL=args.redis, DEBUG="0",
               SECRET_KEY="bench-secret-key-bench-secret-key-0000", ALLOWED_HOSTS="127.0.0.1",
               LOG_LEVEL="WARNING", DASHBOARD_RATE_LIMIT="100000/m",
               ANALYTICS_REFRESH_ON_READ="0", PYTHONUNBUFFERED="1")
    return env


def manage(args, *command) -> None:
    subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=service_env(args), check=True)


def recreate_database(args) -> None:
    url = urllib.parse.urlparse(args.database)
    name = url.path.lstrip("/")
    admin = url._replace(path="/postgres").geturl()
    for statement in (f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
                      f'CREATE DATABASE "{name}"'):
        subprocess.run(["psql", admin, "-q", "-c", statement], check=True)


def start_server(args) -> subprocess.Popen:
    server = subprocess.Popen(
        [GUNICORN, "attribution_site.wsgi", "-k", "gthread", "-w", "1", "--threads", "4",
         "-b", f"127.0.0.1:{PORT}", "--log-level", "warning", "--timeout", "600"],
        cwd=ROOT, env=service_env(args))
    for _ in range(100):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def start_celery(args, tmp: Path) -> list[subprocess.Popen]:
    """A worker and beat as the README starts them (beat's schedule file kept out of the tree)."""
    celery = str(Path(PYTHON).with_name("celery"))
    commands = [[celery, "-A", "attribution_site", "worker", "--loglevel=WARNING"],
                [celery, "-A", "attribution_site", "beat", "--loglevel=WARNING",
                 "-s", str(tmp / "celerybeat-schedule")]]
    return [subprocess.Popen(command, cwd=ROOT, env=service_env(args), start_new_session=True)
            for command in commands]


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        process.wait(30)


def worker_pids(master: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == master:
                pids.append(int(entry.name))
    return pids


def peak_rss_mb(master: int) -> float:
    peak = 0
    for pid in worker_pids(master):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    return peak / 1024


class Client:
    def __init__(self):
        self.connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
        self.token = None

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for attempt in range(2):
            try:
                self.connection.request(method, path, json.dumps(body) if body else None,
                                        headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # gunicorn closes a connection idle for 2 s (keepalive): open another.
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def stream_rows(self, path: str) -> int:
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {self.token}"})
        response = self.connection.getresponse()
        assert response.status == 200, response.read()[:500]
        lines = 0
        while chunk := response.read(1 << 16):
            lines += chunk.count(b"\n")
        return lines - 1  # the header


def demo_app_id(client: Client) -> str:
    status, body = client.call("POST", "/api/v1/auth/login",
                               {"email": "demo@example.com", "password": "demo-password"})
    assert status == 200, body
    client.token = json.loads(body)["data"]["token"]
    status, body = client.call("GET", "/api/v1/apps")
    apps = [a for a in json.loads(body)["data"]["apps"]
            if a["package_name"] == "com.example.demo.runner"]
    return apps[0]["id"]


def time_endpoints(client: Client, app_id: str, start: date, end: date, repeat: int) -> dict:
    timings: dict[str, list[float]] = {}
    for _ in range(2):  # warm up connections and caches
        for endpoint, extra in ENDPOINTS:
            client.call("GET", _path(endpoint, app_id, start, end, extra))
    for _ in range(repeat):
        for endpoint, extra in ENDPOINTS:
            path = _path(endpoint, app_id, start, end, extra)
            began = time.perf_counter()
            status, body = client.call("GET", path)
            elapsed = time.perf_counter() - began
            assert status == 200, body[:500]
            label = endpoint + (f"?model={extra['model']}" if extra else "")
            timings.setdefault(label, []).append(elapsed * 1000)
    return timings


def _path(endpoint: str, app_id: str, start: date, end: date, extra: dict) -> str:
    query = urllib.parse.urlencode({"app_id": app_id, "start_date": start.isoformat(),
                                    "end_date": end.isoformat(), **extra})
    return f"/api/v1/analytics/{endpoint}?{query}"


def sdk_key(client: Client, app_id: str) -> str:
    status, body = client.call("POST", f"/api/v1/apps/{app_id}/keys", {"name": "freshness"})
    assert status == 201, body
    return json.loads(body)["data"]["key"]["full_key"]


def measure_freshness(client: Client, app_id: str, key: str, samples: int) -> dict:
    """Seconds from an answered write to the first dashboard of today that shows it."""
    today = date.today()
    dashboard = _path("dashboard", app_id, today, today, {})

    def kpis() -> dict:
        status, body = client.call("GET", dashboard)
        assert status == 200, body[:500]
        return json.loads(body)["data"]["kpis"]

    def send(method: str, path: str, body: dict | None = None) -> None:
        headers = {"Content-Type": "application/json", "X-API-Key": key}
        # A connection per write: gunicorn closes one idle for 2 s, as it is between samples.
        sdk = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        sdk.request(method, path, json.dumps(body) if body else None, headers)
        response = sdk.getresponse()
        response.read()
        assert response.status in (200, 201, 302), (path, response.status)

    def click(device: str, n: int) -> None:
        query = urllib.parse.urlencode({"app_id": app_id, "pid": "freshness", "c": f"c{n}",
                                        "advertising_id": device})
        send("GET", f"/api/v1/clicks?{query}")

    def install(device: str, n: int) -> None:
        send("POST", "/api/v1/installs", {"app_id": app_id, "platform": "android",
                                          "sdk_version": "1.0", "device_id": device})

    def revenue(device: str, n: int) -> None:
        send("POST", "/api/v1/events", {
            "app_id": app_id, "sdk_version": "1.0", "device_id": device, "events": [{
                "event_name": "purchase", "properties": {"amount": 1.5, "currency": "USD"},
                "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4())}]})

    def cost(device: str, n: int) -> None:
        status, body = client.call("POST", "/api/v1/costs", {"app_id": app_id, "rows": [{
            "date": today.isoformat(), "media_source": "freshness", "campaign_id": device,
            "cost": "2.00", "currency": "USD"}]})
        assert status == 200, body[:500]

    kinds = {"click": (click, "total_clicks"), "install": (install, "total_installs"),
             "revenue event": (revenue, "total_revenue"), "cost import": (cost, "total_cost")}
    found: dict[str, list[float]] = {kind: [] for kind in kinds}
    for n in range(samples):
        device = str(uuid.uuid4())
        for kind, (write, figure) in kinds.items():
            before = kpis()[figure]
            # Written at a random moment of beat's cycle, not just after the last refresh.
            time.sleep(random.uniform(0, 2))
            write(device, n)
            answered = time.perf_counter()
            while kpis()[figure] == before:
                if time.perf_counter() - answered > 60:
                    raise SystemExit(f"{kind} not shown after 60 s: {before} -> {kpis()}")
                time.sleep(0.05)
            found[kind].append(time.perf_counter() - answered)
    return found


def time_exports(client: Client, server: subprocess.Popen, app_id: str, start: date,
                 end: date, runs: int) -> list[tuple]:
    """Per type: rows, the median of `runs` durations (the first run meets a cold cache),
    the slowest and fastest, and the worker's peak memory before the first and after the
    last run."""
    results = []
    for kind in EXPORTS:
        before = peak_rss_mb(server.pid)
        durations = []
        for _ in range(runs):
            began = time.perf_counter()
            rows = client.stream_rows(_path("export", app_id, start, end, {"type": kind}))
            durations.append(time.perf_counter() - began)
        results.append((kind, rows, statistics.median(durations), max(durations),
                        min(durations), before, peak_rss_mb(server.pid)))
    return results


def time_rebuilds(args, app_id: str, day: date) -> dict:
    os.environ.update({k: v for k, v in service_env(args).items()
                       if k in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG"}})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "attribution_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import uuid

    from django.db import transaction

    from analytics.rollups import rebuild as rebuilds
    from tracking.changes import watermark_now

    timings = {}
    for name, rebuild in (("install day", rebuilds.rebuild_install_day),
                          ("click day", rebuilds.rebuild_click_day),
                          ("event day", rebuilds.rebuild_event_day)):
        runs = []
        for _ in range(3):
            began = time.perf_counter()
            with transaction.atomic():
                rebuild(app_id=uuid.UUID(app_id), day=day, seen=watermark_now())
            runs.append(time.perf_counter() - began)
        timings[name] = statistics.median(runs) * 1000
    return timings


def main() -> None:
    args = parse_args()
    seed_seconds = None
    if not args.reuse:
        recreate_database(args)
        manage(args, "migrate", "--noinput", "-v", "0")
        began = time.perf_counter()
        manage(args, "seed_demo", "--installs", str(args.installs), "--events",
               str(args.events), "--clicks", str(args.clicks), "--days", str(args.days))
        seed_seconds = time.perf_counter() - began
    server = start_server(args)
    tmp = Path(tempfile.mkdtemp())
    celery = start_celery(args, tmp)
    try:
        client = Client()
        app_id = demo_app_id(client)
        end = date.today() - timedelta(days=1)
        start = end - timedelta(days=args.range_days - 1)
        timings = time_endpoints(client, app_id, start, end, args.repeat)
        freshness = measure_freshness(client, app_id, sdk_key(client, app_id), args.samples)
        exports = whole = []
        if not args.skip_exports:
            exports = time_exports(client, server, app_id, start, end, runs=3)
            whole = time_exports(client, server, app_id, end - timedelta(days=args.days + 7),
                                 end, runs=1)
    finally:
        stop(celery)
        server.terminate()
        server.wait()
    rebuilds = time_rebuilds(args, app_id, end - timedelta(days=args.range_days // 2))

    lines = [f"Demo app: {args.installs:,} installs, {args.events:,} events, "
             f"{args.clicks:,} clicks over {args.days} days; range {start} to {end} "
             f"({args.range_days} days); {args.repeat} requests per endpoint.", ""]
    if seed_seconds is not None:
        lines += [f"Seeding (seed_demo, rollups included): {seed_seconds:,.0f} s", ""]
    lines += ["| Endpoint | median ms | p95 ms | max ms |", "|---|---:|---:|---:|"]
    for label, values in timings.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
        lines.append(f"| {label} | {statistics.median(values):.1f} | {p95:.1f} | "
                     f"{max(values):.1f} |")
    lines += ["", f"Freshness (worker and beat running, {args.samples} samples each): seconds "
              "from the write's answer to a dashboard of today that shows it", "",
              "| write | median s | p95 s | max s |", "|---|---:|---:|---:|"]
    for kind, values in freshness.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
        lines.append(f"| {kind} | {statistics.median(values):.2f} | {p95:.2f} | "
                     f"{max(values):.2f} |")
    if exports:
        lines += ["", "| Export | range | rows | median s | rows/s (median) | rows/s (slowest, "
                  "fastest) | worker peak RSS before -> after |",
                  "|---|---|---:|---:|---:|---|---|"]
        for label, results in (("30 days, 3 runs", exports), ("all, 1 run", whole)):
            for kind, rows, median, slowest, fastest, before, after in results:
                lines.append(f"| {kind} | {label} | {rows:,} | {median:.1f} | "
                             f"{rows / median:,.0f} | {rows / slowest:,.0f}, {rows / fastest:,.0f} "
                             f"| {before:.0f} MB -> {after:.0f} MB |")
    lines += ["", "| Rebuild of one day (a repair or a backlog) | ms |", "|---|---:|"]
    lines += [f"| {name} | {ms:.0f} |" for name, ms in rebuilds.items()]
    report = "\n".join(lines)
    print(report)
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "analytics.md").write_text(report + "\n")


if __name__ == "__main__":
    main()
