"""What the SDK rate limiter costs a request, beside a whole baseline request.

The per-key limiter (attribution_site/api/throttling.py, `fixed_window_hit`) runs on every
/installs and /events request and, per app, on every /clicks. Its cost is far below the noise
of a served run, so it is timed in-process: N calls in a fresh process per case, against real
Redis, and in the same rounds N in-process calls of bench/baseline's 302 view through its WSGI
application. Each round runs every case once, in rotation; the figures are medians over the
rounds, the ratio the median of the per-round ratios to the baseline.

    .venv/bin/python bench/limiter.py [--rounds 5] [--calls 20000] [--redis URL]

Cases: the default key limit (100,000/s: one Redis round trip per 1,000 requests), 1,000/s (one
per 10), 100/s (one per request: small limits are exact), and Redis refusing connections or
hanging (a local socket that accepts and never answers), both at 100/s.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {  # name: (limit, Redis)
    "limit 100,000/s (default)": (100_000, "real"),
    "limit 1,000/s": (1_000, "real"),
    "limit 100/s (Redis every request)": (100, "real"),
    "Redis refusing, 100/s": (100, "refused"),
    "Redis hung, 100/s": (100, "hung"),
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--inner", help=argparse.SUPPRESS)  # a case, or "baseline"
    return parser.parse_args()


def timed(call, calls: int, warm_up: int) -> dict:
    for _ in range(warm_up):
        call()
    slowest = slow = 0
    started = time.perf_counter_ns()
    for _ in range(calls):
        before = time.perf_counter_ns()
        call()
        took = time.perf_counter_ns() - before
        slowest = max(slowest, took)
        slow += took > 1_000_000
    total = time.perf_counter_ns() - started
    return {"us": total / calls / 1000, "slowest_ms": slowest / 1e6, "slow": slow}


def inner_baseline(calls: int) -> dict:
    import io

    sys.path.insert(0, str(ROOT / "bench" / "baseline"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "baseline_site"
    from baseline_site import application

    def call():
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/r", "QUERY_STRING": "",
                   "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8100", "HTTP_HOST": "127.0.0.1",
                   "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
                   "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
                   "REMOTE_ADDR": "127.0.0.1", "SCRIPT_NAME": ""}
        b"".join(application(environ, lambda status, headers, exc=None: None))

    return timed(call, calls, warm_up=200)


def hung_server() -> str:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held = []

    def serve():
        while True:
            held.append(server.accept()[0])

    threading.Thread(target=serve, daemon=True).start()
    return f"redis://127.0.0.1:{server.getsockname()[1]}/0"


def inner_limiter(case: str, calls: int, redis_url: str) -> dict:
    limit, redis_kind = CASES[case]
    redis_url = {"real": redis_url, "refused": "redis://127.0.0.1:1/0",
                 "hung": hung_server() if redis_kind == "hung" else ""}[redis_kind]
    os.environ.update(REDIS_URL=redis_url, DEBUG="0", LOG_LEVEL="ERROR",
                      SECRET_KEY="bench-secret-key-bench-secret-key-0000",
                      DJANGO_SETTINGS_MODULE="attribution_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from attribution_site.api.throttling import fixed_window_hit

    bucket = f"key:bench-{os.getpid()}"
    # With Redis up, the first syncs (import, connection) are start-up, not the steady cost;
    # with Redis down, the first failure is the figure that matters.
    warm_up = 2 * max(1, limit // 100) if redis_kind == "real" else 0
    return timed(lambda: fixed_window_hit(bucket, limit=limit), calls, warm_up)


def run(name: str, args) -> dict:
    result = subprocess.run([sys.executable, __file__, "--inner", name, "--calls",
                             str(args.calls), "--redis", args.redis],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    args = parse_args()
    if args.inner:
        result = (inner_baseline(args.calls) if args.inner == "baseline"
                  else inner_limiter(args.inner, args.calls, args.redis))
        print(json.dumps(result))
        return
    rounds: list[dict[str, dict]] = []
    for number in range(1, args.rounds + 1):
        measured = {name: run(name, args) for name in ["baseline", *CASES]}
        rounds.append(measured)
        print(f"round {number}: baseline {measured['baseline']['us']:.1f} us/request, "
              + ", ".join(f"{name} {m['us']:.2f} us" for name, m in measured.items()
                          if name != "baseline"), flush=True)
    print(f"\n{args.calls:,} calls per case and round, {args.rounds} rounds (medians)\n")
    print("| case | us per call | share of a baseline request | calls over 1 ms | slowest |")
    print("|---|---|---|---|---|")
    for name in ["baseline", *CASES]:
        us = statistics.median(r[name]["us"] for r in rounds)
        share = statistics.median(r[name]["us"] / r["baseline"]["us"] for r in rounds)
        slow = statistics.median(r[name]["slow"] for r in rounds)
        slowest = statistics.median(r[name]["slowest_ms"] for r in rounds)
        label = "baseline request (bare Django 302 view)" if name == "baseline" else name
        print(f"| {label} | {us:.2f} | {share:.3f} | {slow:g} | {slowest:.1f} ms |")


if __name__ == "__main__":
    main()
