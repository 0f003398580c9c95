"""Helpers shared by the browser tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TypeVar

import pytest
from django.conf import settings

from tests.delivery.helpers import purge_queues
from tests.processes import (
    Process,
    free_port,
    readme_commands,
    readme_web_command,
    running,
    service_env,
    stop_all,
    wait_until_healthy,
)

T = TypeVar("T")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Headless, and nothing talking to Google's servers in the background of a test.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR")
                   or Path(settings.BASE_DIR) / "test-output" / "screenshots")
DESKTOP = {"width": 1280, "height": 900}
RECEIVER_BODY = '<img src=x onerror="alert(3)"> received'


@dataclass
class Service:
    """The running service: its address and its processes (web, worker, beat)."""

    url: str
    processes: dict[str, Process]

    def api(self, path: str) -> str:
        return f"{self.url}/api/v1/{path.lstrip('/')}"


def _failed(request) -> bool:
    report = getattr(request.node, "outcome_call", None)
    return report is None or report.failed


@pytest.fixture(scope="session")
def local_ca(tmp_path_factory):
    """A throw-away CA for the HTTPS receivers (webhooks must be https), and its bundle."""
    import trustme

    ca = trustme.CA()
    bundle = tmp_path_factory.mktemp("browser-ca") / "bundle.pem"
    ca.cert_pem.write_to_path(str(bundle))
    return SimpleNamespace(ca=ca, bundle=bundle)


@pytest.fixture
def service(transactional_db, tmp_path, local_ca, request) -> Iterator[Service]:
    """The README's web, worker and beat on this test's database and Redis, on a free port.
    Private networks are allowed so that webhooks may reach receivers on 127.0.0.1, and our
    CA is trusted the way an operator would configure it (REQUESTS_CA_BUNDLE)."""
    purge_queues()  # nothing left over from an earlier test reaches this worker
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = service_env(GUNICORN_BIND=f"127.0.0.1:{port}", ALLOWED_HOSTS="127.0.0.1,localhost",
                      OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", REQUESTS_CA_BUNDLE=str(local_ca.bundle))
    with ExitStack() as stack:
        # gunicorn reads gunicorn.conf.py from where it starts: the repository, as `make web`.
        web = Process(readme_web_command(), env=env, log_path=tmp_path / "web.log",
                      cwd=Path(settings.BASE_DIR))
        stack.callback(web.stop)
        background = stack.enter_context(running(
            {"worker": readme_commands("worker")[0], "beat": readme_commands("beat")[0]},
            tmp_path=tmp_path, env=env, ready={"worker": " ready.", "beat": "beat: Starting"}))
        processes = {"web": web, **background}
        wait_until_healthy(web, url)
        yield Service(url=url, processes=processes)
        stop_all(processes.values())  # together, before the test database is emptied
        stack.close()
        if _failed(request):
            for name, process in processes.items():
                print(f"--- {name}: {process.command}\n{process.output()[-6000:]}")
    purge_queues()


@dataclass
class Troubles:
    """What the page did that it never should: errors, CSP violations, dialogs."""

    page_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def watch(self, page) -> None:
        page.on("pageerror", lambda error: self.page_errors.append(f"{page.url}: {error}"))
        page.on("console", lambda message: self._console(page, message))
        page.on("dialog", self._dialog)

    def _console(self, page, message) -> None:
        if "content security policy" in message.text.lower().replace("-", " "):
            self.csp_violations.append(f"{page.url}: {message.text}")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def none(self) -> bool:
        return not (self.page_errors or self.csp_violations or self.dialogs)


def stored(read: Callable[[], T]) -> T:
    """Run an ORM read on a thread of its own and return its result. Playwright's sync API
    keeps an asyncio loop running in the test's thread, where Django refuses ORM calls
    (SynchronousOnlyOperation); the thread's connection is closed after the read."""
    from django.db import connections

    def run() -> T:
        try:
            return read()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def troubles() -> Troubles:
    return Troubles()


@pytest.fixture
def page(browser, service, troubles, request):
    """A fresh browser tab on the service (relative URLs go to it), allowed to use the
    clipboard. Fails the test on any page error, CSP violation or dialog."""
    context = browser.new_context(base_url=service.url, viewport=DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=service.url)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    troubles.watch(tab)
    name = re.sub(r"[^\w.-]+", "-", request.node.name)
    failure = SCREENSHOTS / f"failure-{name}.png"
    failure.unlink(missing_ok=True)  # an earlier run's
    yield tab
    if _failed(request):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=failure, full_page=True)
    context.close()
    assert troubles.none(), f"the pages misbehaved: {troubles}"


__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "DESKTOP",
    "RECEIVER_BODY",
    "SCREENSHOTS",
    "Service",
    "Troubles",
    "_failed",
    "free_port",
    "readme_web_command",
    "stored",
]
