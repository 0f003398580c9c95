"""CPU per request of a hot path, and of the named functions inside it, in the service's own
process: where an install's or an event batch's milliseconds go, without a profiler's overhead
(cProfile inflates small, frequent calls several times over).

Calls the WSGI application in-process with bench/instructions.py's requests, on the database
`bench/hotpaths.py --postgres URL` leaves behind, after a warm-up; wraps each function in
SECTIONS to add up its `time.process_time()` (inclusive: a function's figure contains the
functions it calls), and reads the PostgreSQL backend's CPU from `/proc` around the loop (the
database on this machine). Event batches carry a client event id on every event, as
bench/wrk/event_batches.lua sends them.

    .venv/bin/python bench/hotpaths.py --postgres postgres://postgres@127.0.0.1:5432 \\
        --large 100000 --rounds 1 --duration 2                    # leaves attr_bench behind
    .venv/bin/python bench/cpu_sections.py installs --requests 3000
    .venv/bin/python bench/cpu_sections.py events --requests 500

A function imported by name into another module before the wrapping (`from x import f`) is
not seen there; the sections below are reached through their modules. Not a test.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import instructions  # noqa: E402 - bench/instructions.py, beside this file

SECTIONS = {
    "installs": [
        "tracking.views:InstallReportView.post", "tracking.services:install_record",
        "tracking.sql:attribution_inputs", "tracking.fraud_gate:gated_attribution",
        "tracking.attribution:attribute", "fraud.rules:screen_clicks",
        "tracking.fingerprint:rank", "attribution_site.write_batch:WriteBatch.execute",
        "attribution_site.write_batch:_values", "attribution_site.domain_events:publish",
        "attribution_site.prepared:execute", "attribution_site.prepared:fetch",
        "apps_registry.sdk:SdkView.dispatch", "apps_registry.sdk:_json_body",
        "attribution_site.api.envelope:success_response",
        "django.core.handlers.wsgi:WSGIHandler.__call__",
        "django.db.models.base:Model.__init__"],
    "events": [
        "tracking.views:EventsView.post", "tracking.services:events_record",
        "tracking.sql:event_batch_start", "tracking.sql:events_insert",
        "attribution_site.prepared:fetch", "attribution_site.domain_events:publish",
        "apps_registry.sdk:SdkView.dispatch", "apps_registry.sdk:_json_body",
        "attribution_site.api.envelope:success_response",
        "django.core.handlers.wsgi:WSGIHandler.__call__"],
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", choices=sorted(SECTIONS))
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/attr_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    return parser.parse_args()


def _with_event_ids(make):
    def request(app_id, key, clicks, run_id, n):
        method, path, query, body, headers = make(app_id, key, clicks, run_id, n)
        data = json.loads(body)
        for i, event in enumerate(data["events"]):
            event["event_id"] = f"{run_id:08x}-{n}-{i}"
        return method, path, query, json.dumps(data).encode(), headers
    return request


def _wrap(target: str, spent: collections.Counter) -> None:
    module_name, _, attribute = target.partition(":")
    owner = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    function = getattr(owner, name)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[target] += time.process_time() - started

    setattr(owner, name, timed)


def _backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    args = parse_args()
    instructions._events = _with_event_ids(instructions._events)
    application, make_request = instructions.service_app(args)
    spent: collections.Counter = collections.Counter()
    for target in SECTIONS[args.path]:
        _wrap(target, spent)
    requests = [make_request(n) for n in range(instructions.WARM_UP + args.requests)]

    def call(request):
        statuses = []
        b"".join(application(instructions._environ(*request),
                             lambda status, headers, exc=None: statuses.append(status)))
        if statuses[0][:3] not in ("200", "201"):
            raise SystemExit(f"unexpected answer {statuses[0]}")

    for request in requests[:instructions.WARM_UP]:
        call(request)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    spent.clear()
    backend_before, started = _backend_cpu(backend), time.process_time()
    for request in requests[instructions.WARM_UP:]:
        call(request)
    total = (time.process_time() - started) / args.requests * 1000
    backend_ms = (_backend_cpu(backend) - backend_before) / args.requests * 1000
    print(f"{args.path}: {total:.3f} ms of Python CPU per request, PostgreSQL backend "
          f"{backend_ms:.3f} ms")
    for target, seconds in spent.most_common():
        print(f"{seconds / args.requests * 1000:8.3f} ms  {target}")


if __name__ == "__main__":
    main()
