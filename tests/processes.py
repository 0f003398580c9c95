"""The service's own processes, started in tests exactly as the README starts them, each in a
process of its own on this test's database and the real Redis: the command's output is kept in
a file, shown when something fails, and the whole process group is ended afterwards.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import quote

import requests
from django.conf import settings
from django.db import connection

README = Path(settings.BASE_DIR) / "README.md"


def readme_commands(process: str) -> list[str]:
    """The `celery -A attribution_site <process> ...` commands of the README, in order."""
    pattern = rf"celery -A attribution_site {process}\b[^`\n#|]*"
    return [match.strip() for match in re.findall(pattern, README.read_text())]


def readme_web_command() -> str:
    """The web process of the README's production-shape table (what `make web` runs)."""
    match = re.search(r"`(gunicorn attribution_site\.wsgi [^`]*)`", README.read_text())
    assert match, "the README names no gunicorn command for the web process"
    return match.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def service_env(**extra: str) -> dict[str, str]:
    """The environment of a service process that shares this test's database and Redis."""
    database = connection.settings_dict
    login = quote(database["USER"] or "")
    if database["PASSWORD"]:
        login += ":" + quote(database["PASSWORD"])
    env = dict(os.environ)
    env.update(
        DATABASE_URL=(f"postgres://{login}@{database['HOST']}:{database['PORT'] or 5432}"
                      f"/{database['NAME']}"),
        REDIS_URL=settings.REDIS_URL, SECRET_KEY=settings.SECRET_KEY, DEBUG="0",
        PYTHONPATH=str(settings.BASE_DIR), PYTHONUNBUFFERED="1", **extra)
    return env


class Process:
    """A command run as the README shows it, its output kept in a file for the test to read
    and shown when the test fails."""

    def __init__(self, command: str, *, env: dict[str, str], log_path: Path, cwd: Path,
                 from_venv: bool = True):
        argv = shlex.split(command)
        if from_venv:  # the celery of this virtualenv, the rest exactly as written
            argv[0] = str(Path(sys.executable).with_name(argv[0]))
        self.command = command
        self.log_path = log_path
        with open(log_path, "wb") as log:
            # A session of its own, so the worker's pool processes can be ended with it.
            self.popen = subprocess.Popen(argv, env=env, cwd=cwd, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_output(self, text: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.command!r} exited:\n{self.output()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not in the output of {self.command!r}:\n"
                                     f"{self.output()}")
            time.sleep(0.1)

    def stop(self) -> None:
        stop_all([self])

    def _ask_to_stop(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)

    def _wait_stopped(self) -> None:
        try:
            self.popen.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)


def stop_all(processes: Iterable[Process]) -> None:
    """End the processes together: each takes a second or two to shut down gracefully (the
    worker's pool, gunicorn's workers), and one after another a test's web, worker and beat
    added their times to every test that starts them."""
    processes = list(processes)
    for process in processes:
        process._ask_to_stop()
    for process in processes:
        process._wait_stopped()


@contextmanager
def running(commands: dict[str, str], *, tmp_path: Path, env: dict[str, str],
            ready: dict[str, str]) -> Iterator[dict[str, Process]]:
    """Start each named command (in `tmp_path`, so beat's schedule file lands there), wait for
    its `ready` text, and stop them all at the end; their output is added to a failure."""
    with ExitStack() as stack:
        processes = {}
        stack.callback(lambda: stop_all(processes.values()))
        for name, command in commands.items():
            processes[name] = Process(command, env=env, log_path=tmp_path / f"{name}.log",
                                      cwd=tmp_path)
        for name, text in ready.items():
            processes[name].wait_for_output(text)
        try:
            yield processes
        except AssertionError as failure:
            logs = "\n".join(f"--- {name}: {p.command}\n{p.output()[-4000:]}"
                             for name, p in processes.items())
            raise AssertionError(f"{failure}\n{logs}") from failure


@contextmanager
def web(*, env: dict[str, str], tmp_path: Path, name: str = "web") -> Iterator[tuple[str, Process]]:
    """The README's gunicorn on a free port of 127.0.0.1, answering /healthz: (its URL, it).
    It starts in the repository, as `make web` does, so it reads gunicorn.conf.py."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = Process(readme_web_command(), env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
                      log_path=tmp_path / f"{name}.log", cwd=Path(settings.BASE_DIR))
    try:
        wait_until_healthy(process, url)
        yield url, process
    finally:
        process.stop()


def wait_until_healthy(web: Process, url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if web.popen.poll() is not None:
            raise AssertionError(f"{web.command!r} exited:\n{web.output()}")
        try:
            if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass  # not listening yet, or its workers still booting
        if time.monotonic() > deadline:
            raise AssertionError(f"{url}/healthz never answered 200:\n{web.output()}")
        time.sleep(0.1)
