"""The service started as the README starts it (gunicorn, worker, beat) in each pooling mode:
Django's psycopg pool in every process, and PgBouncer in transaction mode in front of the
database. SDK traffic from many threads at once, the event-id check, the analytics refresh and a
streamed export (a server-side cursor) all work through it. Whole-suite runs: .ci/run.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest
import requests
from django.conf import settings
from django.db import connection
from django.utils import timezone

from accounts.services import access_token_issue
from tests.pooling import pgbouncer
from tests.processes import readme_commands, running, service_env, web
from tracking.models import Event

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

INSTALLS = 24


def _service_env(mode: str, port: int | None) -> dict[str, str]:
    env = service_env(DATABASE_POOL=mode, ALLOWED_HOSTS="127.0.0.1,localhost",
                      # A pool smaller than gunicorn's 4 threads: requests wait their turn.
                      DATABASE_POOL_MIN_SIZE="1", DATABASE_POOL_MAX_SIZE="2")
    env.pop("DATABASE_PREPARED_STATEMENTS", None)  # each mode's own default
    if settings.DATABASE_POOL == "pgbouncer":
        # CI's run of the suite through PgBouncer: this test's database is behind it, and a
        # Django pool in front of PgBouncer must leave prepared statements off too.
        env["DATABASE_PREPARED_STATEMENTS"] = "0"
    if port is not None:
        env["DATABASE_URL"] = pgbouncer.through(env["DATABASE_URL"], port)
    return env


@pytest.fixture(params=["django", pytest.param("pgbouncer", marks=pytest.mark.pgbouncer)])
def pooled(request, tmp_path):
    """(the service's URL, the mode) with web, worker and beat running in that mode."""
    mode = request.param
    with ExitStack() as stack:
        port = None
        if mode == "pgbouncer":
            database = connection.settings_dict
            port = stack.enter_context(pgbouncer.running(
                server_host=database["HOST"] or "127.0.0.1",
                server_port=int(database["PORT"] or 5432), user=database["USER"] or "postgres"))
        env = _service_env(mode, port)
        url, _ = stack.enter_context(web(env=env, tmp_path=tmp_path))
        stack.enter_context(running(
            {"worker": readme_commands("worker")[0], "beat": readme_commands("beat")[0]},
            tmp_path=tmp_path, env=env, ready={"worker": " ready.", "beat": "beat: Starting"}))
        yield url, mode


def test_sdk_traffic_reports_and_exports_work_in_each_pooling_mode(pooled, app, sdk_key, owner):
    url, mode = pooled
    sdk = {"X-API-Key": sdk_key}
    owner_headers = {"Authorization": f"Bearer {access_token_issue(user=owner)}"}

    def install(n: int) -> int:
        body = {"app_id": str(app.id), "platform": "android", "sdk_version": "1.0",
                "device_id": f"pooled-{mode}-{n}"}
        return requests.post(f"{url}/api/v1/installs", json=body, headers=sdk,
                             timeout=30).status_code

    with ThreadPoolExecutor(12) as threads:
        assert sorted(threads.map(install, range(INSTALLS))) == [201] * INSTALLS
        assert sorted(threads.map(install, range(INSTALLS))) == [200] * INSTALLS  # repeats

    batch = {"app_id": str(app.id), "sdk_version": "1.0", "device_id": f"pooled-{mode}-0",
             "events": [{"event_name": "purchase", "event_id": f"order-{n}",
                         "properties": {"amount": 2, "currency": "USD"},
                         "timestamp": int(time.time() * 1000),
                         "session_id": str(uuid.uuid4())} for n in range(3)]}
    first = requests.post(f"{url}/api/v1/events", json=batch, headers=sdk, timeout=30)
    retry = requests.post(f"{url}/api/v1/events", json=batch, headers=sdk, timeout=30)
    assert first.status_code in (200, 201, 202), first.text
    assert retry.status_code in (200, 201, 202), retry.text
    assert first.json()["data"]["accepted"] == retry.json()["data"]["accepted"] == 3
    assert Event.objects.filter(app_id=app.id).count() == 3  # the retry stored nothing

    today = timezone.now().date().isoformat()
    period = {"app_id": str(app.id), "start_date": today, "end_date": today}
    deadline = time.monotonic() + 60  # a bound for a broken setup, not a timing assertion
    while True:
        dashboard = requests.get(f"{url}/api/v1/analytics/dashboard", params=period,
                                 headers=owner_headers, timeout=30)
        assert dashboard.status_code == 200, dashboard.text
        if dashboard.json()["data"]["kpis"]["total_installs"] == INSTALLS:
            break
        assert time.monotonic() < deadline, f"beat's refresh never counted: {dashboard.text}"
        time.sleep(0.5)

    export = requests.get(f"{url}/api/v1/analytics/export", params={**period, "type": "installs"},
                          headers=owner_headers, timeout=30)
    assert export.status_code == 200, export.text
    lines = export.text.strip().splitlines()
    assert len(lines) == 1 + INSTALLS  # the header and every install, streamed
