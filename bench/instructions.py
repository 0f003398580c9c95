"""CPU instructions per request of a hot path, counted by valgrind: repeatable where timings
on these noisy two-core machines are not.

Calls the service's WSGI application in-process (no gunicorn, no network client) on the
database that bench/hotpaths.py left behind (run with `--postgres`: its own server is removed
at the end), under `valgrind --tool=callgrind`, once with no measured requests and once with
N, and prints the difference divided by N. Only the Python process is counted (its idle
threads' wake-ups add well under 1%): PostgreSQL's and Redis's work is not. `--baseline`
counts bench/baseline's 302 view the same way.

    .venv/bin/python bench/hotpaths.py --postgres postgres://postgres@127.0.0.1:5432 \
        --rounds 1 --duration 2                            # leaves a database behind
    .venv/bin/python bench/instructions.py installs        # clicks, installs, events
    .venv/bin/python bench/instructions.py --baseline

Needs valgrind (`apt-get install valgrind`). Installs are first installs (fresh device ids;
half of them clicked devices, half fingerprint lookups, as in bench/wrk/installs.lua).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 50
ANDROID_BROWSER = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like "
                   "Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")
ANDROID_SDK = "Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A.231005.007)"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", choices=("clicks", "installs", "events"))
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/attr_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)  # requests, under valgrind
    args = parser.parse_args()
    if not args.baseline and args.path is None:
        parser.error("name a path, or --baseline")
    return args


def count(args) -> int:
    """Instructions of this script run with `--inner requests`, as callgrind totals them."""
    command = [sys.executable, __file__, *([args.path] if args.path else []),
               *(["--baseline"] if args.baseline else []), "--database", args.database,
               "--redis", args.redis]
    out_file = Path(f"/tmp/callgrind.instructions.{os.getpid()}")
    totals = []
    for requests in (0, args.requests):  # both runs build the same requests beforehand
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
             *command, "--requests", str(args.requests), "--inner", str(requests)],
            capture_output=True, text=True, check=True)
        totals.append(int(re.search(r"Collected : (\d+)", result.stderr).group(1)))
        out_file.unlink(missing_ok=True)
    return (totals[1] - totals[0]) // args.requests


def baseline_app():
    sys.path.insert(0, str(ROOT / "bench" / "baseline"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "baseline_site"
    import baseline_site

    return baseline_site.application, lambda n: ("GET", "/r", "", b"", {})


def service_app(args):
    os.environ.update(DATABASE_URL=args.database, REDIS_URL=args.redis, DEBUG="0",
                      SECRET_KEY="bench-secret-key-bench-secret-key-0000",
                      ALLOWED_HOSTS="127.0.0.1", NUM_PROXIES="1", LOG_LEVEL="WARNING",
                      DJANGO_SETTINGS_MODULE="attribution_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.wsgi import get_wsgi_application

    from apps_registry.models import App
    from apps_registry.services import api_key_create

    app = App.objects.get()  # bench/hotpaths.py's one app
    key = api_key_create(app=app)[1]
    from tracking.models import Click

    clicks = Click.objects.filter(app=app).count()
    make = {"clicks": _click, "installs": _install, "events": _events}[args.path]
    run_id = random.getrandbits(32)
    return get_wsgi_application(), lambda n: make(str(app.id), key, clicks, run_id, n)


def _environ(method, path, query, body, headers) -> dict:
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
               "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8101", "HTTP_HOST": "127.0.0.1",
               "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
               "REMOTE_ADDR": "127.0.0.1", "SCRIPT_NAME": ""}
    if body:
        environ.update(CONTENT_TYPE="application/json", CONTENT_LENGTH=str(len(body)))
    environ.update(headers)
    return environ


def _click(app_id, key, clicks, run_id, n):
    query = (f"app_id={app_id}&pid=network{n % 7}&c=campaign{n % 50}&af_adset=s{n % 13}"
             f"&advertising_id={run_id:08x}-0000-4000-8000-{n:012d}")
    return ("GET", "/api/v1/clicks", query, b"", {
        "HTTP_USER_AGENT": ANDROID_BROWSER, "HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9",
        "HTTP_X_FORWARDED_FOR": f"81.{n % 200}.{n // 200 % 250}.{n % 250 + 1}"})


def _install(app_id, key, clicks, run_id, n):
    # Even requests: a clicked device (a stride through the loaded clicks from a random start);
    # odd: a new device on a loaded network.
    networks = max(1, clicks // 10)
    if n % 2 == 0:
        device = f"00000001-0000-4000-8000-{(run_id + n * 3967) % clicks + 1:012d}"
    else:
        device = f"{run_id:08x}-{n % 65536:04x}-4000-9000-{n:012d}"
    net = (run_id + n * 7919) % networks
    body = json.dumps({"app_id": app_id, "platform": "android", "sdk_version": "2.4.0",
                       "device_id": device, "os_version": "14", "device_model": "SM-S918B",
                       "language": "en-US"}).encode()
    address = f"{82 + net // 62500}.{net // 250 % 250}.{net % 250}.{n % 254 + 1}"
    return ("POST", "/api/v1/installs", "", body, {
        "HTTP_X_API_KEY": key, "HTTP_USER_AGENT": ANDROID_SDK, "HTTP_X_FORWARDED_FOR": address})


def _events(app_id, key, clicks, run_id, n):
    now = int(time.time() * 1000)
    events = [{"event_name": f"event_{i % 8}",
               "properties": ({"amount": i % 10 + 0.99, "currency": "USD", "sku": f"gems_{i}"}
                              if i % 20 == 0 else {"level": i, "screen": "main", "score": i * 37}),
               "timestamp": now - i * 1000, "session_id": "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}
              for i in range(1, 101)]
    body = json.dumps({"app_id": app_id, "sdk_version": "2.4.0",
                       "device_id": "00000001-0000-4000-8000-000000000001",
                       "events": events}).encode()
    return ("POST", "/api/v1/events", "", body, {"HTTP_X_API_KEY": key})


def inner(args) -> None:
    application, make_request = baseline_app() if args.baseline else service_app(args)
    # Built before any is sent, as many in both runs: only serving them is counted.
    requests = [make_request(n) for n in range(WARM_UP + args.requests)]

    def call(request):
        statuses = []
        b"".join(application(_environ(*request), lambda status, headers, exc=None:
                             statuses.append(status)))
        if statuses[0][:3] not in ("200", "201", "302"):
            raise SystemExit(f"unexpected answer {statuses[0]}")

    for request in requests[:WARM_UP + args.inner]:  # the same warm-up in both runs
        call(request)


def main() -> None:
    args = parse_args()
    if args.inner is not None:
        inner(args)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed: apt-get install valgrind")
    label = "baseline" if args.baseline else args.path
    print(f"{label}: {count(args):,} instructions per request")


if __name__ == "__main__":
    main()
