"""Reports served from a real streaming replica (docs/replica.md, "Tests"), end to end:
a PostgreSQL primary and its replica made by cluster.py, the schema migrated on the primary by
`manage.py migrate`, and the web process started as the README starts it, with DATABASE_URL
naming the primary and DATABASE_REPLICA_URL the replica. No Redis: the embedded default's
path, where every analytics request first refreshes the rollups (on the primary) and then
reads them (on the replica).

With the replica's replay paused, what the primary has and the reports show come apart: a new
install is stored on the primary, and the analytics figures, their `data_through`, the export,
the delivery log and the console's pages still show the replica's state, while a just-created
app is found at once. Resumed, the install appears; stopped, the reports answer from the
primary.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
from django.conf import settings

from tests.browser.helpers import free_port, readme_web_command
from tests.delivery.receivers import Receiver
from tests.processes import Process
from tests.replica.cluster import ReplicaPair

pytestmark = pytest.mark.replica

TODAY = datetime.now(UTC).date().isoformat()
PERIOD = {"start_date": TODAY, "end_date": TODAY}
EMAIL, PASSWORD = "owner@example.com", "long-enough-password"


@dataclass
class Service:
    url: str
    database: str
    web: Process
    pair: ReplicaPair
    env: dict[str, str]
    token: str = ""

    def api(self, method: str, path: str, *, key: str | None = None, **kwargs):
        headers = {"X-API-Key": key} if key else {"Authorization": f"Bearer {self.token}"}
        return requests.request(method, f"{self.url}/api/v1/{path}", headers=headers,
                                timeout=30, allow_redirects=False, **kwargs)

    def data(self, method: str, path: str, expected: int = 200, **kwargs) -> dict:
        response = self.api(method, path, **kwargs)
        assert response.status_code == expected, response.text
        return response.json()["data"]

    def on_primary(self, sql: str, params=()):
        return self.pair.primary.query(sql, params, database=self.database)

    def on_replica(self, sql: str, params=()):
        return self.pair.replica.query(sql, params, database=self.database)


def _environment(pair: ReplicaPair, database: str, port: int, pool: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("DATABASE_", "REDIS_"))}
    env.update(DATABASE_URL=pair.primary.url(database),
               DATABASE_REPLICA_URL=pair.replica.url(database), DATABASE_POOL=pool,
               SECRET_KEY=settings.SECRET_KEY, DEBUG="0", ALLOWED_HOSTS="127.0.0.1",
               GUNICORN_BIND=f"127.0.0.1:{port}", OUTBOUND_ALLOW_PRIVATE_NETWORKS="1",
               PYTHONPATH=str(settings.BASE_DIR), PYTHONUNBUFFERED="1")
    return env


# Each web thread with connections of its own (the default), and psycopg's pool per process.
@pytest.fixture(params=["off", "django"], ids=["own-connections", "django-pool"])
def service(request, pair: ReplicaPair, tmp_path) -> Iterator[Service]:
    database = f"attr_replica_{uuid.uuid4().hex[:8]}"
    pair.create_database(database)
    port = free_port()
    env = _environment(pair, database, port, pool=request.param)
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], env=env,
                              cwd=settings.BASE_DIR, capture_output=True, text=True,
                              timeout=300)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    pair.wait_replayed()
    web = Process(readme_web_command(), env=env, log_path=tmp_path / "web.log",
                  cwd=Path(settings.BASE_DIR))
    try:
        _wait_until_healthy(web, f"http://127.0.0.1:{port}")
        yield Service(url=f"http://127.0.0.1:{port}", database=database, web=web, pair=pair,
                      env=env)
    finally:
        web.stop()
        if not (pair.replica.data / "postmaster.pid").exists():
            pair.replica.start()  # stopped by the test: back for the rest of the session


def _wait_until_healthy(web: Process, url: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        assert web.popen.poll() is None, web.output()
        try:
            if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or still loading
            pass
        assert time.monotonic() < deadline, web.output()
        time.sleep(0.1)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver().start()
    yield running
    running.stop()


def _sdk_install(service: Service, key: str, app_id: str, device: str) -> None:
    # The ad click first, so the install is attributed and its network's postback is sent.
    click = service.api("GET", "clicks", params={"app_id": app_id, "pid": "facebook",
                                                  "c": "summer", "advertising_id": device})
    assert click.status_code == 302
    service.data("POST", "installs", 201, key=key, json={
        "app_id": app_id, "platform": "android", "sdk_version": "1.0", "device_id": device})


def _dashboard(service: Service, app_id: str) -> dict:
    return service.data("GET", "analytics/dashboard", params={"app_id": app_id, **PERIOD})


def _export_devices(service: Service, app_id: str) -> list[str]:
    response = service.api("GET", "analytics/export",
                           params={"app_id": app_id, "type": "installs", **PERIOD})
    assert response.status_code == 200, response.text
    lines = response.text.strip().splitlines()
    assert lines[0].startswith("install_id,")
    return sorted(line.split(",")[2] for line in lines[1:])


def _log_size(service: Service, app_id: str) -> int:
    return len(service.data("GET", "postbacks/logs", params={"app_id": app_id})["logs"])


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _console_login(service: Service) -> requests.Session:
    browser = requests.Session()
    page = browser.get(f"{service.url}/console/login", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    done = browser.post(f"{service.url}/console/login", timeout=30, allow_redirects=False,
                        data={"csrfmiddlewaretoken": token, "email": EMAIL,
                              "password": PASSWORD})
    assert done.status_code == 302, done.text
    return browser


def _console_installs_tile(browser: requests.Session, service: Service, app_id: str
                           ) -> tuple[int, datetime]:
    """The overview's Installs tile and the moment its note says the figures go up to."""
    page = browser.get(f"{service.url}/console/apps/{app_id}/", timeout=30)
    assert page.status_code == 200
    tile = re.search(r'<dt class="label">Installs</dt><dd class="value">([\d,]+)</dd>',
                     page.text)
    through = re.search(r'Figures include data through <time datetime="([^"]+)"', page.text)
    return int(tile.group(1).replace(",", "")), _moment(through.group(1))


def test_reports_read_the_replica_and_a_new_app_the_primary(service, receiver):
    # --- An owner, an app found right after it is made, a key, a postback --------------------
    service.token = service.data("POST", "auth/signup", 201, json={
        "email": EMAIL, "password": PASSWORD, "name": "Owner",
        "company_name": "Acme"})["token"]
    app_id = service.data("POST", "apps", 201, json={
        "name": "Runner", "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.runner",
    })["app"]["id"]
    assert service.data("GET", f"apps/{app_id}")["app"]["id"] == app_id
    # A script clicks and installs within milliseconds: the click-to-install floor and the
    # engagement limit of the default fraud rules would refuse it (docs/fraud.md).
    service.data("PUT", f"apps/{app_id}/fraud-settings", json={
        "ctit_anomalies_mode": "off", "too_many_engagements_mode": "off"})
    key = service.data("POST", f"apps/{app_id}/keys", 201,
                       json={"name": "android sdk"})["key"]["full_key"]
    service.data("POST", "postbacks", 201, json={
        "app_id": app_id, "media_source": "facebook",
        "postback_url": receiver.url("/pb?d={device_id}")})

    # --- An install and a purchase through the SDK API, rollups refreshed on the primary ----
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    _sdk_install(service, key, app_id, first)
    service.data("POST", "events", key=key, json={
        "app_id": app_id, "sdk_version": "1.0", "device_id": first, "events": [{
            "event_name": "purchase", "properties": {"amount": 4.99, "currency": "USD"},
            "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4())}]})
    receiver.wait_for(1)
    refreshed = subprocess.run(
        [sys.executable, "manage.py", "analytics_refresh"], cwd=settings.BASE_DIR, timeout=120,
        env={**service.env, "DATABASE_REPLICA_URL": ""},
        capture_output=True, text=True)
    assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr
    service.pair.wait_replayed()

    board = _dashboard(service, app_id)
    assert board["kpis"]["total_installs"] == 1 and board["kpis"]["paid_installs"] == 1
    assert board["kpis"]["total_revenue"] == 4.99
    assert _export_devices(service, app_id) == [first]
    assert _log_size(service, app_id) == 1
    browser = _console_login(service)

    # --- Replay paused: the primary moves on, the reports stay with the replica -------------
    service.pair.pause_replay()
    (replica_through,) = service.on_replica(
        "SELECT data_through FROM analytics_rollupstate WHERE id = 1")
    sent_at = datetime.now(UTC)
    _sdk_install(service, key, app_id, second)
    receiver.wait_for(2)
    deadline = time.monotonic() + 15
    while service.on_primary("SELECT count(*) FROM delivery_deliveryattempt")[0] < 2:
        assert time.monotonic() < deadline, "the second postback attempt was never recorded"
        time.sleep(0.05)
    assert service.on_primary("SELECT count(*) FROM tracking_install WHERE app_id = %s",
                              [app_id]) == (2,)

    board = _dashboard(service, app_id)  # refreshes the rollups on the primary first
    (primary_through,) = service.on_primary(
        "SELECT data_through FROM analytics_rollupstate WHERE id = 1")
    assert primary_through > sent_at, "the refresh before the read ran on the primary"
    assert board["kpis"]["total_installs"] == 1
    # Figures and their watermark from the same database: the replica's, older than the
    # second install, so the report does not claim it.
    assert _moment(board["data_through"]) == replica_through < sent_at
    assert _export_devices(service, app_id) == [first]
    assert _log_size(service, app_id) == 1
    skan = service.data("GET", "analytics/skan", params={"app_id": app_id, **PERIOD})
    assert _moment(skan["data_through"]) < sent_at
    assert _console_installs_tile(browser, service, app_id) == (1, replica_through)
    installs_page = browser.get(f"{service.url}/console/apps/{app_id}/installs", timeout=30)
    assert first in installs_page.text and second not in installs_page.text

    # A read that must see its own write goes to the primary: the new app is there at once.
    other_id = service.data("POST", "apps", 201, json={
        "name": "Walker", "platform": "android", "package_name": "com.acme.walker",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.walker",
    })["app"]["id"]
    assert service.data("GET", f"apps/{other_id}")["app"]["name"] == "Walker"
    assert {app["id"] for app in service.data("GET", "apps")["apps"]} == {app_id, other_id}
    assert service.on_replica("SELECT count(*) FROM apps_registry_app") == (1,)

    ready = requests.get(f"{service.url}/readyz", timeout=30)
    assert ready.status_code == 200
    assert ready.json()["data"]["checks"]["replica"] == "warning"
    lag = ready.json()["data"]["replica"]
    assert lag["replay_paused"] is True and lag["lag_bytes"] > 0

    # --- Replay resumed: the second install appears -----------------------------------------
    service.pair.resume_replay()
    service.pair.wait_replayed()
    board = _dashboard(service, app_id)
    assert board["kpis"]["total_installs"] == 2
    assert _moment(board["data_through"]) >= primary_through
    assert _export_devices(service, app_id) == sorted([first, second])
    assert _log_size(service, app_id) == 2
    assert _console_installs_tile(browser, service, app_id)[0] == 2
    ready = requests.get(f"{service.url}/readyz", timeout=30).json()["data"]
    assert ready["checks"]["replica"] == "ok" and ready["replica"]["replay_paused"] is False

    # --- Replica stopped: the reports answer from the primary, with a warning logged --------
    service.pair.replica.stop()
    board = _dashboard(service, app_id)
    assert board["kpis"]["total_installs"] == 2
    assert _export_devices(service, app_id) == sorted([first, second])
    assert _log_size(service, app_id) == 2
    assert _console_installs_tile(browser, service, app_id)[0] == 2
    ready = requests.get(f"{service.url}/readyz", timeout=30)
    assert ready.status_code == 200
    assert ready.json()["data"]["status"] == "ready"
    assert ready.json()["data"]["checks"]["replica"] == "down"
    assert "the read replica does not answer" in service.web.output()
