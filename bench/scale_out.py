"""Scale-out, measured (docs/scaling.md, "Checked with two of everything"): two gunicorn servers
behind a load balancer, two Celery workers and beat, against one PostgreSQL and Redis, under SDK
traffic from two clients; then the checks that nothing was lost, stored twice or sent twice, and
that the rollups are exact.

    .venv/bin/python bench/scale_out.py                       # as recorded in docs/benchmarks.md
    .venv/bin/python bench/scale_out.py --code /work/before --duration 20

Every process is started as the README starts it, from the tree given with --code: `gunicorn
attribution_site.wsgi -c gunicorn.conf.py` twice (GUNICORN_BIND on ports 8141 and 8142, access
logs on), `celery -A attribution_site worker --loglevel=INFO` twice (`-n scale1@%h`, `-n
scale2@%h`) and `celery -A attribution_site beat --loglevel=INFO` (its schedule file in the
run's directory), on a private PostgreSQL server (port 5497) and Redis db 14. haproxy (port
8140, round robin, health checks on /healthz) spreads the requests; it passes the clients'
X-Forwarded-For through (NUM_PROXIES=1, as bench/hotpaths.py's clients send it).

One organization and app; a postback for network1 (plain HTTP) and a webhook subscribed to
installs (HTTPS, a CA trusted through REQUESTS_CA_BUNDLE), both to receivers in this process
that keep every request. Two wrk clients run bench/wrk/sdk_mix.lua at once for --duration
seconds, with the same seed: each sends clicks, installs (new devices, clicked devices,
repeats) and event batches of 10 with client event ids (and retries of them), and its twin
sends the same requests at about the same time, so every install and event id is raced
across the two servers. Each response is written down. Then the load stops, the deliveries
drain, beat's rollups catch up, and the bench prints PASS or FAIL for each check:

- no request was answered 5xx;
- every install answered 201 or 200 is stored, once; no device was answered 201 twice;
- every event id of a batch answered 200 is stored, once; no event id is stored twice;
- every delivery succeeded; each webhook delivery id arrived once; each install got one
  install webhook, and each install attributed to network1 one postback, no other install any;
- the rollups beat kept equal a full rebuild of the same days (as
  tests/analytics/test_rollups.py compares them);
- both servers served (haproxy's counts, the access logs and each server's CPU).

Not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import secrets
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
import redis
from harness import (
    REDIS_URL,
    ROOT,
    Process,
    Receiver,
    app_create,
    code_env,
    code_label,
    ensure_free,
    migrate,
    private_server,
    recreate_database,
    shell,
    tree_cpu_seconds,
    trusted_tls,
    wait_for_http,
)

BALANCER_PORT, WEB_PORTS = 8140, (8141, 8142)
HAPROXY_CONFIG = """
global
    maxconn 2048
    stats socket {directory}/haproxy.sock mode 600 level admin

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s

frontend sdk
    bind 127.0.0.1:{port}
    default_backend web

backend web
    balance roundrobin
    option httpchk
    http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1
    http-check expect status 200
{servers}
"""


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the tree to run")
    parser.add_argument("--duration", type=int, default=30, help="seconds of load")
    parser.add_argument("--threads", type=int, default=8,
                        help="wrk threads (and connections) of each client")
    parser.add_argument("--drain-timeout", type=int, default=900)
    return parser.parse_args()


# --- What the clients were told -------------------------------------------------------------

def answers(directory: Path, run: str) -> dict:
    """The wrk clients' records: statuses per kind, the devices answered per status, the
    event ids acknowledged."""
    statuses = collections.Counter()
    installs: dict[str, list[int]] = collections.defaultdict(list)
    acknowledged: set[str] = set()
    for path in directory.glob("client*-*.txt"):
        thread = int(path.stem.rsplit("-", 1)[1])
        for line in path.read_text().splitlines():
            kind, status, *rest = line.split()
            statuses[kind, int(status)] += 1
            if kind == "install":
                installs[rest[0]].append(int(status))
            elif kind == "events" and status == "200":
                acknowledged.update(f"{run}-{thread}-{n}"
                                    for n in range(int(rest[0]), int(rest[1]) + 1))
    return {"statuses": statuses, "installs": installs, "acknowledged": acknowledged}


def wrk_client(name: str, args, env: dict, directory: Path) -> subprocess.Popen:
    return subprocess.Popen(
        ["wrk", f"-t{args.threads}", f"-c{args.threads}", f"-d{args.duration}s", "--timeout",
         "30s", "-s", str(ROOT / "bench" / "wrk" / "sdk_mix.lua"),
         f"http://127.0.0.1:{BALANCER_PORT}"],
        env={**env, "BENCH_OUT": str(directory / name)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)


def haproxy_servers(directory: Path) -> dict[str, dict[str, str]]:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(directory / "haproxy.sock"))
        sock.sendall(b"show stat\n")
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    lines = raw.decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line]
    return {row["svname"]: row for row in rows if row["pxname"] == "web"
            and row["svname"] not in ("BACKEND",)}


# --- Checks ----------------------------------------------------------------------------------

def check(results: list[bool], ok: bool, text: str) -> None:
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  {text}", flush=True)


def stored(database: str, app_id: str) -> dict:
    with psycopg.connect(database) as conn:
        installs = conn.execute(
            "SELECT device_id, count(*), min(id::text), bool_and(NOT is_organic AND"
            " media_source = 'network1') FROM tracking_install WHERE app_id = %s"
            " GROUP BY device_id", [app_id]).fetchall()
        events = dict(conn.execute(
            "SELECT event_id, count(*) FROM tracking_event WHERE app_id = %s"
            " AND event_id IS NOT NULL GROUP BY event_id", [app_id]).fetchall())
        deliveries = dict(conn.execute(
            "SELECT state, count(*) FROM delivery_delivery GROUP BY state").fetchall())
        clicks = conn.execute("SELECT count(*) FROM tracking_clickarchive").fetchone()[0]
    return {"installs": {device: (count, install_id, postback)
                         for device, count, install_id, postback in installs},
            "events": events, "deliveries": deliveries, "clicks": clicks}


ROLLUPS_EXACT = """
import uuid
from analytics import rollups
from analytics.models import (CohortRevenueStat, DailyClickStat, DailyCreditedRevenueStat,
    DailyCreditStat, DailyInstallStat, DailyRetentionStat, DailyRevenueStat, InstallTouchpoint)
MODELS = (DailyInstallStat, DailyClickStat, DailyRevenueStat, CohortRevenueStat,
          DailyRetentionStat, InstallTouchpoint, DailyCreditStat, DailyCreditedRevenueStat)
app_id = uuid.UUID(%(app_id)r)
def snapshot():
    return {model.__name__: sorted(
        tuple(str(v) for k, v in sorted(row.items()) if k != 'id')
        for row in model.objects.filter(app_id=app_id).values()) for model in MODELS}
kept = snapshot()
rollups.rebuild_app(app_id=app_id)
rebuilt = snapshot()
for name in kept:
    print('ROLLUP', name, len(kept[name]), len(rebuilt[name]), kept[name] == rebuilt[name])
"""


def rollups_exact(code: Path, env: dict, app_id: str, results: list[bool]) -> None:
    """The rollups beat kept, against a rebuild of every day of the app, compared the way
    tests/analytics/test_rollups.py compares them (every row of every rollup, ids aside)."""
    out = shell(code, env, ROLLUPS_EXACT % {"app_id": app_id})
    rows = [line.split() for line in out.splitlines() if line.startswith("ROLLUP ")]
    differing = [name for _, name, _, _, same in rows if same != "True"]
    summary = ", ".join(f"{name} {kept}" for _, name, kept, _, _ in rows)
    check(results, bool(rows) and not differing,
          f"rollups kept by beat equal a full rebuild of the app's days (rows: {summary})"
          + (f"; differing: {', '.join(differing)}" if differing else ""))


def wait_for_beat(database: str, timeout: float = 120.0) -> None:
    """Until beat's refresh has added everything committed and has no day queued."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(database, autocommit=True) as conn:
        while time.monotonic() < deadline:
            pending = conn.execute("SELECT count(*) FROM analytics_rollupdirtyday").fetchone()[0]
            if pending == 0:
                break
            time.sleep(1.0)
    time.sleep(6.0)  # three of beat's 2-second refreshes after the last write


def main() -> None:
    args = parse_args()
    code = args.code.resolve()
    run = secrets.token_hex(4)
    directory = Path(tempfile.mkdtemp(prefix="attr-scale-out-"))
    redis.Redis.from_url(REDIS_URL).flushdb()
    with private_server(settings={"shared_buffers": "1GB", "max_connections": "200"}) as server, \
            trusted_tls() as (tls, bundle):
        database = server.database("attr_scale_out")
        recreate_database(database)
        env = code_env(database, OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", REQUESTS_CA_BUNDLE=bundle)
        migrate(code, env)
        _, app_id, key = app_create(code, env)
        postbacks, webhooks = Receiver(), Receiver(tls=tls)
        shell(code, env, (
            "from apps_registry.models import App\n"
            "from delivery.services import postback_create, webhook_create\n"
            f"app = App.objects.get(id='{app_id}')\n"
            "postback_create(app=app, media_source='network1', postback_url="
            f"'{postbacks.url}/pb?install={{install_id}}&device={{device_id}}')\n"
            f"webhook_create(app=app, url='{webhooks.url}/hook', events=['install'])\n"))
        (directory / "haproxy.cfg").write_text(HAPROXY_CONFIG.format(
            directory=directory, port=BALANCER_PORT, servers="\n".join(
                f"    server web{i} 127.0.0.1:{port} check inter 1s"
                for i, port in enumerate(WEB_PORTS, 1))))
        processes: list[Process] = []
        balancer = None
        ensure_free(BALANCER_PORT, *WEB_PORTS)
        try:
            webs = [Process("gunicorn attribution_site.wsgi -c gunicorn.conf.py", code=code,
                            env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}",
                                 "GUNICORN_ACCESS_LOG": str(directory / f"access{i}.log")},
                            log=directory / f"gunicorn{i}.log")
                    for i, port in enumerate(WEB_PORTS, 1)]
            processes += webs
            for i in (1, 2):
                processes.append(Process(
                    f"celery -A attribution_site worker --loglevel=INFO -n scale{i}@%h",
                    code=code, env=env, log=directory / f"worker{i}.log"))
            processes.append(Process(
                "celery -A attribution_site beat --loglevel=INFO -s "
                f"{directory / 'celerybeat-schedule'}", code=code, env=env,
                log=directory / "beat.log"))
            for port in WEB_PORTS:
                wait_for_http(port)
            for worker in processes[2:4]:
                worker.wait_for("ready.")
            balancer = subprocess.Popen(["haproxy", "-db", "-f", str(directory / "haproxy.cfg")],
                                        stdout=open(directory / "haproxy.log", "wb"),
                                        stderr=subprocess.STDOUT, start_new_session=True)
            wait_for_http(BALANCER_PORT)
            time.sleep(2.0)  # both servers' health checks passed
            cpu = [tree_cpu_seconds(web.pid) for web in webs]
            wrk_env = dict(os.environ, BENCH_APP_ID=app_id, BENCH_KEY=key, BENCH_RUN=run,
                           BENCH_SEED=str(int(run, 16) % 100000))
            print(f"== {code_label(code)}: two clients, wrk -t{args.threads} "
                  f"-c{args.threads} each, {args.duration} s, through haproxy to two gunicorns",
                  flush=True)
            clients = [wrk_client(name, args, wrk_env, directory) for name in ("clientA",
                                                                                "clientB")]
            reports = [client.communicate()[0] for client in clients]
            cpu = [tree_cpu_seconds(web.pid) - before for web, before in zip(webs, cpu,
                                                                             strict=True)]
            for name, report in zip(("A", "B"), reports, strict=True):
                rate = re.search(r"Requests/sec:\s+([\d.]+)", report)
                errors = re.search(r"Socket errors:.*", report)
                print(f"  client {name}: {rate.group(1) if rate else '?'} req/s"
                      f"{'; ' + errors.group(0) if errors else ''}", flush=True)
            served = haproxy_servers(directory)
            print("  served (haproxy): " + "; ".join(
                f"{name} {int(row['stot']):,} requests, 2xx {row['hrsp_2xx']}, 3xx "
                f"{row['hrsp_3xx']}, 4xx {row['hrsp_4xx']}, 5xx {row['hrsp_5xx']}, "
                f"{int(row['stot']) / args.duration:,.0f}/s" for name, row in served.items()))
            logged = [sum(1 for _ in open(directory / f"access{i}.log")) for i in (1, 2)]
            print(f"  served (access logs): web1 {logged[0]:,}, web2 {logged[1]:,}; gunicorn CPU "
                  f"{cpu[0]:.1f} s and {cpu[1]:.1f} s", flush=True)

            print("== draining the deliveries", flush=True)
            deadline = time.monotonic() + args.drain_timeout
            while time.monotonic() < deadline:
                open_ = sum(count for state, count in stored(database, app_id)["deliveries"]
                            .items() if state in ("pending", "sending"))
                if open_ == 0:
                    break
                time.sleep(2.0)
            wait_for_beat(database)
            told = answers(directory, run)
            have = stored(database, app_id)
            results: list[bool] = []
            print(f"\nAnswers: {dict(sorted(told['statuses'].items()))}; stored: "
                  f"{len(have['installs']):,} installs, {sum(have['events'].values()):,} events "
                  f"with ids, {have['clicks']:,} clicks; deliveries {have['deliveries']}; "
                  f"received {len(postbacks.requests):,} postbacks, {len(webhooks.requests):,} "
                  "webhooks\n")
            failed = {f"{kind} {status}": n for (kind, status), n in told["statuses"].items()
                      if status >= 500}
            check(results, not failed,
                  f"no request answered 5xx: {failed or 'none'} (a 5xx is not a loss, the SDK "
                  "retries, but the service owes an answer)")
            answered = {device for device, codes in told["installs"].items()
                        if any(code in (200, 201) for code in codes)}
            missing = [device for device in answered if device not in have["installs"]]
            doubled = [device for device, (count, _, _) in have["installs"].items() if count > 1]
            check(results, not missing and not doubled,
                  f"no lost install: {len(answered):,} devices answered 201/200 "
                  f"({sum(codes.count(201) for codes in told['installs'].values()):,} 201s, "
                  f"{sum(codes.count(200) for codes in told['installs'].values()):,} 200s), "
                  f"{len(missing)} of them not stored, {len(doubled)} stored twice")
            created_twice = [d for d, codes in told["installs"].items() if codes.count(201) > 1]
            check(results, not created_twice,
                  f"each install created once: {len(created_twice)} devices answered 201 twice")
            # wrk stops at the deadline without reading the answers then in flight, at most
            # one per connection; the service stores those all the same.
            unanswered = set(have["installs"]) - answered
            check(results, len(unanswered) <= 2 * args.threads,
                  f"no install stored that nobody asked for: {len(unanswered)} stored without a "
                  f"201/200 seen (at most {2 * args.threads}, one per connection, may have been "
                  "in flight when the clients stopped)")
            lost_events = told["acknowledged"] - set(have["events"])
            doubled_events = [e for e, count in have["events"].items() if count > 1]
            check(results, not lost_events and not doubled_events,
                  f"events stored once per client event id: {len(told['acknowledged']):,} ids "
                  f"acknowledged, {len(lost_events)} not stored, {len(doubled_events)} stored "
                  "twice")
            check(results, set(have["deliveries"]) <= {"succeeded"},
                  f"every delivery succeeded: {have['deliveries']}")
            ids = collections.Counter(r.headers.get("webhook-id") for r in webhooks.requests)
            per_install = collections.Counter(json.loads(r.body)["data"]["install_id"]
                                              for r in webhooks.requests)
            check(results, all(n == 1 for n in ids.values()) and None not in ids,
                  f"no duplicate webhook: {len(ids):,} delivery ids, "
                  f"{sum(1 for n in ids.values() if n > 1)} received more than once")
            stored_ids = {install_id for _, install_id, _ in have["installs"].values()}
            check(results, set(per_install) == stored_ids
                  and all(n == 1 for n in per_install.values()),
                  f"one install webhook per install: {len(per_install):,} installs notified of "
                  f"{len(stored_ids):,}, {sum(1 for n in per_install.values() if n > 1)} twice")
            posted = collections.Counter(parse_qs(urlsplit(r.path).query)["install"][0]
                                         for r in postbacks.requests)
            expected = {install_id for _, install_id, network1 in have["installs"].values()
                        if network1}
            check(results, set(posted) == expected and all(n == 1 for n in posted.values()),
                  f"one postback per install attributed to network1: {len(expected):,} "
                  f"expected, {len(posted):,} received, "
                  f"{sum(1 for n in posted.values() if n > 1)} twice, "
                  f"{len(set(posted) - expected)} not expected")
            for process in processes[4:]:  # beat: the rebuild must not race its refresh
                process.stop()
            rollups_exact(code, env, app_id, results)
            check(results, all(int(row["stot"]) > 0 for row in served.values())
                  and len(served) == 2 and all(logged),
                  "both servers served")
            print(f"\n{sum(results)} of {len(results)} checks passed; logs in {directory}")
        finally:
            if balancer is not None:
                balancer.terminate()
                balancer.wait()
            for process in processes:
                process.stop()
            postbacks.stop()
            webhooks.stop()


if __name__ == "__main__":
    main()
