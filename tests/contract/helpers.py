"""Helpers shared by the contract tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import requests
from django.conf import settings

from tests.delivery.helpers import (  # noqa: F401 - fixtures
    ca,
    ca_bundle_path,
    private_destinations_allowed,
    receiver,
    receiver_factory,
    tls_receiver,
    trusted_ca,
)
from tests.processes import (
    Process,
    free_port,
    readme_commands,
    readme_web_command,
    stop_all,
    wait_until_healthy,
)

BASE_DIR = Path(settings.BASE_DIR)
PASSWORD = "contract-password"
# Speed knobs and the operator's set-up; every app setting keeps its default.
OPERATOR_ENV = {
    "OUTBOUND_ALLOW_PRIVATE_NETWORKS": "1",
    "DELIVERY_RETRY_DELAYS": "1,2,4",
    "DELIVERY_SWEEP_INTERVAL_SECONDS": "1",
    "DELIVERY_SWEEP_GRACE_SECONDS": "1",
    "NUM_PROXIES": "1",
    "PYTHONUNBUFFERED": "1",
}
PUBLIC_IP = "81.2.69.142"


@dataclass
class Service:
    url: str
    shape: str  # "production" or "embedded"
    processes: list[Process]

    def api(self, path: str) -> str:
        return f"{self.url}/api/v1/{path.lstrip('/')}"

    def logs(self) -> str:
        return "\n".join(f"--- {p.command}\n{p.output()[-6000:]}" for p in self.processes)


def _operator_environment(**extra: str) -> dict[str, str]:
    """This shell's environment without any setting the service reads (as a fresh clone's
    user has none), plus the operator's set-up above."""
    names = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", (BASE_DIR / ".env.example").read_text(),
                           re.M))
    env = {name: value for name, value in os.environ.items() if name not in names}
    env.update(OPERATOR_ENV, **extra)
    return env


def _redis_url_beside(url: str) -> str:
    """The run's Redis server, the next database: the walk's queues and counters never meet
    the suite's."""
    parts = urlsplit(url)
    number = int(parts.path.lstrip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + 1) % 16}"))


@contextmanager
def _database_of_its_own() -> Iterator[str]:
    database = settings.DATABASES["default"]
    name = f"{database['NAME']}_contract"[:63]
    admin = psycopg.connect(host=database["HOST"], port=database["PORT"] or 5432,
                            user=database["USER"], password=database["PASSWORD"] or None,
                            dbname="postgres", autocommit=True)
    login = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgres://{login}@{database['HOST']}:{database['PORT'] or 5432}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _production_shape(workdir: Path, ca_bundle: str) -> Iterator[Service]:
    with ExitStack() as stack:
        database_url = stack.enter_context(_database_of_its_own())
        env = _operator_environment(
            DATABASE_URL=database_url, REDIS_URL=_redis_url_beside(settings.REDIS_URL),
            SECRET_KEY=settings.SECRET_KEY, REQUESTS_CA_BUNDLE=ca_bundle, ALLOWED_HOSTS="127.0.0.1",
            PYTHONPATH=str(BASE_DIR))
        migrate = Process(f"{sys.executable} manage.py migrate --noinput", env=env,
                          log_path=workdir / "migrate.log", cwd=BASE_DIR, from_venv=False)
        assert migrate.popen.wait(300) == 0, migrate.output()
        port = free_port()
        processes = [
            Process(readme_web_command(), env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
                    log_path=workdir / "web.log", cwd=BASE_DIR),
            Process(readme_commands("worker")[0], env=env, log_path=workdir / "worker.log",
                    cwd=workdir),
            Process(readme_commands("beat")[0], env=env, log_path=workdir / "beat.log",
                    cwd=workdir),
        ]
        stack.callback(stop_all, processes)
        url = f"http://127.0.0.1:{port}"
        wait_until_healthy(processes[0], url)
        processes[1].wait_for_output("ready.")
        yield Service(url, "production", processes)


def _embedded(workdir: Path, ca_bundle: str) -> Iterator[Service]:
    port = free_port()
    env = _operator_environment(DATABASE_URL=f"sqlite:///{workdir / 'db.sqlite3'}",
                                REQUESTS_CA_BUNDLE=ca_bundle)
    make_run = Process(f"make --no-print-directory run PORT={port} VENV={Path(sys.prefix)}",
                       env=env, log_path=workdir / "make-run.log", cwd=BASE_DIR,
                       from_venv=False)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_healthy(make_run, url, timeout=180)  # the first run migrates a new file
        yield Service(url, "embedded", [make_run])
    finally:
        make_run.stop()


@pytest.fixture(scope="package")
def service(tmp_path_factory, ca_bundle_path) -> Iterator[Service]:  # noqa: F811
    workdir = tmp_path_factory.mktemp("contract")
    postgres = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    if postgres and settings.REDIS_URL:
        yield from _production_shape(workdir, ca_bundle_path)
    else:
        yield from _embedded(workdir, ca_bundle_path)


class Caller:
    """An HTTP client of the service: a dashboard user (JWT) and, once it has one, an SDK
    (API key) of one app."""

    def __init__(self, service: Service, token: str | None = None):
        self.service = service
        self.token = token
        self.http = requests.Session()

    def call(self, method: str, path: str, *, json=None, params=None, key: str | None = None,
             token: str | None = None, headers: dict | None = None,
             redirects: bool = False) -> requests.Response:
        sent = dict(headers or {})
        if key is not None:
            sent["X-API-Key"] = key
        elif (token or self.token) and "Authorization" not in sent:
            sent["Authorization"] = f"Bearer {token or self.token}"
        return self.http.request(method, self.service.api(path), json=json, params=params,
                                 headers=sent, allow_redirects=redirects, timeout=30)

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, json=None, **kwargs) -> requests.Response:
        return self.call("POST", path, json=json, **kwargs)

    def put(self, path: str, json=None, **kwargs) -> requests.Response:
        return self.call("PUT", path, json=json, **kwargs)

    def delete(self, path: str, **kwargs) -> requests.Response:
        return self.call("DELETE", path, **kwargs)


def data(response: requests.Response, status: int) -> dict:
    """The success envelope's `data`, after checking the status and the envelope."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["success"] is True, body
    return body["data"]


def error(response: requests.Response, status: int, code: str) -> dict:
    """The error envelope's `error`, after checking the status, the code and its shape."""
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith("application/json"), response.headers
    body = response.json()
    assert body["success"] is False, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]


@dataclass
class Account:
    caller: Caller
    email: str
    user: dict


@dataclass
class AppWithKey:
    id: str
    key: str
    app: dict


def sign_up(service: Service) -> Account:
    email = f"owner-{uuid.uuid4().hex[:12]}@example.com"
    caller = Caller(service)
    answer = data(caller.post("auth/signup", {"email": email, "password": PASSWORD,
                                              "name": "Contract Owner",
                                              "company_name": "Contract Co"}), 201)
    caller.token = answer["token"]
    return Account(caller, email, answer["user"])


def android_app(owner: Account, *, package: str | None = None) -> AppWithKey:
    package = package or f"com.contract.app{uuid.uuid4().hex[:8]}"
    app = data(owner.caller.post("apps", {
        "name": "Runner", "platform": "android", "package_name": package,
        "play_store_url": f"https://play.google.com/store/apps/details?id={package}",
        "app_store_url": "https://apps.apple.com/app/id1234567890"}), 201)["app"]
    key = data(owner.caller.post(f"apps/{app['id']}/keys", {"name": "sdk"}), 201)["key"]
    return AppWithKey(app["id"], key["full_key"], app)


@pytest.fixture
def owner(service) -> Account:
    return sign_up(service)


ANDROID_BROWSER = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
                   "Gecko) Chrome/125.0.0.0 Mobile Safari/537.36")
IPHONE_BROWSER = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
                  "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")


def click(caller: Caller, app_id: str, *, user_agent: str = ANDROID_BROWSER,
          ip: str = PUBLIC_IP, **params: str) -> requests.Response:
    """GET /clicks as an ad network's tracking link sends it, from a phone's browser."""
    answer = caller.get("clicks", params={"app_id": app_id, **params},
                        headers={"User-Agent": user_agent, "X-Forwarded-For": ip,
                                 "Accept-Language": "en-US,en;q=0.9"})
    assert answer.status_code == 302, answer.text
    return answer


def install(caller: Caller, app: AppWithKey, *, ip: str = PUBLIC_IP,
            **fields) -> requests.Response:
    body = {"app_id": app.id, "platform": "android", "sdk_version": "6.1.0", **fields}
    return caller.post("installs", body, key=app.key,
                       headers={"X-Forwarded-For": ip, "User-Agent": "Dalvik/2.1.0 (Linux; U; "
                                "Android 14; Pixel 8 Build/AP1A.240305.019)"})


def events(caller: Caller, app: AppWithKey, device_id: str, *items: dict) -> requests.Response:
    return caller.post("events", {"app_id": app.id, "device_id": device_id,
                                  "sdk_version": "6.1.0", "events": list(items)}, key=app.key)


def purchase(amount: float, currency: str = "USD", **extra) -> dict:
    return {"event_name": "purchase", "properties": {"amount": amount, "currency": currency},
            "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4()), **extra}


def eventually(check, *, timeout: float = 45.0, interval: float = 0.25, service=None):
    """The value of `check()` once it is truthy; the service's logs on a failure."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            logs = service.logs() if service is not None else ""
            raise AssertionError(f"not reached within {timeout:.0f} s\n{logs}")
        time.sleep(interval)


def device() -> str:
    return str(uuid.uuid4())


__all__ = [
    "AppWithKey",
    "Caller",
    "IPHONE_BROWSER",
    "PASSWORD",
    "PUBLIC_IP",
    "android_app",
    "click",
    "data",
    "device",
    "error",
    "events",
    "eventually",
    "install",
    "purchase",
    "sign_up",
]
