"""Console benchmark: every console page on the 1M-install demo app (docs/console.md,
"Speed at 1,000,000 installs": each page under 500 ms of server time).

Uses the database `bench/analytics_bench.py` seeds (`seed_demo --installs 1000000 --events
10000000 --clicks 5000000`; run that first, or pass --database of another seeded one), starts
gunicorn on it the same way (gthread, one worker, Redis db 14), logs in through the console's
own login form as the demo user, and requests each page --repeat times in rotation with a
keep-alive session. The time is the whole request on loopback, headers to last byte: an upper
bound of the server time. Report pages take the 30 full days before today (custom range) and
the 30-day preset; the install list is timed on its first page and on the page reached after
following "Older" --deep times.

    .venv/bin/python bench/analytics_bench.py --skip-exports   # seeds (about 15 min), once
    .venv/bin/python bench/console_bench.py                    # times the pages

Not a test: nothing here asserts a timing. Prints Markdown.
"""

from __future__ import annotations

import argparse
import html
import re
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
import analytics_bench as bench  # noqa: E402

BASE = f"http://127.0.0.1:{bench.PORT}"
NEXT_PAGE = re.compile(r'<a[^>]*href="([^"]*(?:cursor|before|after)=[^"]*)"')
INSTALL_LINK = re.compile(r'href="(/console/apps/[0-9a-f-]+/installs/[0-9a-f-]{36})"')


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="requests per page")
    parser.add_argument("--deep", type=int, default=200, help="'Older' pages to follow")
    parser.add_argument("--database",
                        default="postgres://postgres@127.0.0.1:5432/attr_bench_analytics")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    return parser.parse_args()


def logged_in() -> requests.Session:
    session = requests.Session()
    session.get(f"{BASE}/console/login").raise_for_status()
    answer = session.post(f"{BASE}/console/login", allow_redirects=False, data={
        "email": "demo@example.com", "password": "demo-password",
        "csrfmiddlewaretoken": session.cookies["csrftoken"]})
    assert answer.status_code == 302, answer.text[:500]
    return session


def fetch(session: requests.Session, path: str) -> str:
    answer = session.get(f"{BASE}{path}", allow_redirects=False)
    assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
    return answer.text


def pages(session: requests.Session, app_id: str, deep: int) -> list[tuple[str, str]]:
    end = date.today() - timedelta(days=1)
    start = end - timedelta(days=29)
    custom = f"range=custom&start={start}&end={end}"
    app = f"/console/apps/{app_id}"
    listed = [
        ("apps list", "/console/"),
        ("overview, 30 days", f"{app}/?{custom}"),
        ("overview, today", f"{app}/?range=today"),
        ("sources", f"{app}/sources?{custom}"),
        ("sources, sorted by ROAS", f"{app}/sources?{custom}&sort=roas&dir=desc"),
        ("campaigns", f"{app}/campaigns?{custom}"),
        *[(f"campaigns, {model}", f"{app}/campaigns?{custom}&model={model}")
          for model in ("first-touch", "linear", "time-decay")],
        ("cohorts", f"{app}/cohorts?{custom}"),
        ("revenue", f"{app}/revenue?{custom}"),
        ("exports", f"{app}/exports?{custom}"),
        ("installs, first page", f"{app}/installs"),
    ]
    first = fetch(session, f"{app}/installs")
    detail = INSTALL_LINK.search(first)
    if detail:
        listed.append(("install detail", detail.group(1)))
    page, path = first, None
    for _ in range(deep):
        found = NEXT_PAGE.search(page)
        if not found:
            break
        path = html.unescape(found.group(1))
        page = fetch(session, path)
    if path:
        listed.append((f"installs, {deep} pages deep", path))
    device = re.search(r"<code>([0-9a-f]{8}-[0-9a-f-]{27})</code>", first)
    if device:
        listed.append(("install search by device id", f"{app}/installs?q={device.group(1)}"))
    listed += [
        ("keys", f"{app}/keys"),
        ("postbacks & webhooks", f"{app}/deliveries"),
        ("costs", f"{app}/costs"),
        ("link builder", f"{app}/link-builder?pid=facebook&c=summer"),
        ("settings", f"{app}/settings"),
    ]
    return listed


def main() -> None:
    args = parse_args()
    server = bench.start_server(args)
    try:
        app_id = bench.demo_app_id(bench.Client())
        session = logged_in()
        listed = pages(session, app_id, args.deep)
        for _name, path in listed:  # warm: first requests compile templates, fill caches
            fetch(session, path)
        times: dict[str, list[float]] = {name: [] for name, _ in listed}
        for _ in range(args.repeat):
            for name, path in listed:
                began = time.perf_counter()
                fetch(session, path)
                times[name].append((time.perf_counter() - began) * 1000)
    finally:
        server.terminate()
        server.wait(30)
    print(f"| page ({args.repeat} requests each) | median ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, runs in times.items():
        runs.sort()
        p95 = runs[min(len(runs) - 1, round(0.95 * (len(runs) - 1)))]
        print(f"| {name} | {statistics.median(runs):.0f} | {p95:.0f} | {runs[-1]:.0f} |")


if __name__ == "__main__":
    main()
