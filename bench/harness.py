"""What the scale-out benchmarks (partitions_bench.py, capacity.py, scale_out.py) share: a
private PostgreSQL server of their own, the CPU time of a process tree read from /proc, the
service's code and processes run from a given directory (`--code`, so one script measures two
trees alike), and a local receiver for postbacks and webhooks.

The server is initdb'd into a temporary directory with this machine's binaries, runs as the
postgres user when the bench runs as root, and is removed afterwards; every setting not given
is PostgreSQL's default (autovacuum on, unlike bench/hotpaths.py's server).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PORT = 5497  # not bench/hotpaths.py's 5499, not the machine's 5432
REDIS_URL = "redis://127.0.0.1:6379/14"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Server:
    url: str  # postgres://postgres@127.0.0.1:PORT, no database
    data: Path

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def database(self, name: str) -> str:
        return f"{self.url}/{name}"


@contextlib.contextmanager
def private_server(*, port: int = PORT, settings: dict[str, str] | None = None
                   ) -> Iterator[Server]:
    bindir = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 check=True).stdout.strip())
    ensure_free(port)
    data = Path(tempfile.mkdtemp(prefix="attr-scale-pg-"))
    as_postgres = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(data, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    options = [f"-p {port}", "-c listen_addresses=127.0.0.1",
               f"-c unix_socket_directories={data}"]
    options += [f"-c {name}={value}" for name, value in (settings or {}).items()]
    subprocess.run([*as_postgres, bindir / "initdb", "-D", data, "-A", "trust", "-U",
                    "postgres", "--no-sync"], check=True, capture_output=True)
    subprocess.run([*as_postgres, bindir / "pg_ctl", "-D", data, "-l", data / "server.log",
                    "-o", " ".join(options), "-w", "start"], check=True, capture_output=True)
    try:
        yield Server(url=f"postgres://postgres@127.0.0.1:{port}", data=data)
    finally:
        subprocess.run([*as_postgres, bindir / "pg_ctl", "-D", data, "-m", "fast", "-w",
                        "stop"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


def ensure_free(*ports: int) -> None:
    """Stop here if something listens on a port: a server left behind by an earlier run (or
    another job's) would answer instead of ours."""
    import socket

    for port in ports:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"port {port} is already in use: stop what runs there first")


def recreate_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


# --- CPU time from /proc ---------------------------------------------------------------------

def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone meanwhile
        return None
    # The command name may hold spaces and parentheses: split after its closing one.
    return raw[raw.rindex(")") + 2:].split()


def tree_cpu_seconds(root_pid: int) -> float:
    """User + system CPU of `root_pid` and every live descendant, plus what its exited
    children used (cutime/cstime, counted once they are reaped): PostgreSQL backends and
    gunicorn workers alike."""
    children: dict[int, list[int]] = {}
    fields: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            fields[int(entry)] = stat
            children.setdefault(int(stat[1]), []).append(int(entry))
    if root_pid not in fields:
        return 0.0
    # After the state and ppid, fields 14-17 of stat(5) are 11-14 here: utime, stime,
    # cutime, cstime.
    root = fields[root_pid]
    ticks = sum(int(v) for v in root[11:15])
    stack = list(children.get(root_pid, []))
    while stack:
        pid = stack.pop()
        ticks += sum(int(v) for v in fields[pid][11:13])
        stack.extend(children.get(pid, []))
    return ticks / CLOCK_TICKS


# --- The service's code, run from a directory ------------------------------------------------

def code_env(database_url: str, *, redis_url: str = REDIS_URL, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the code directory is the manage.py's own
    env.update(DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0",
               SECRET_KEY="bench-secret-key-bench-secret-key-0000", ALLOWED_HOSTS="127.0.0.1",
               NUM_PROXIES="1", LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="attribution_site.settings", **extra)
    return env


def manage(code: Path, env: dict[str, str], *args: str) -> str:
    """`manage.py args...` of the tree at `code`, with this virtualenv's Python; its stdout."""
    done = subprocess.run([PYTHON, "manage.py", *args], cwd=code, env=env, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)[:200]} in {code} failed:\n"
                         f"{done.stdout[-2000:]}{done.stderr[-4000:]}")
    return done.stdout


def shell(code: Path, env: dict[str, str], program: str) -> str:
    return manage(code, env, "shell", "-c", program)


def migrate(code: Path, env: dict[str, str]) -> None:
    manage(code, env, "migrate", "--noinput", "-v", "0")


def app_create(code: Path, env: dict[str, str], *, email: str = "bench@example.com"
               ) -> tuple[str, str, str]:
    """An organization, its owner, an app and an SDK key, through the services the API uses:
    (organization id, app id, full key)."""
    out = shell(code, env, (
        "from accounts.services import account_signup\n"
        "from apps_registry.services import app_create, api_key_create\n"
        f"u = account_signup(email='{email}', password='bench-password', name='Bench',"
        " company_name='Bench')\n"
        "a = app_create(organization_id=u.organization_id, name='Bench', platform='android',"
        " package_name='com.bench.app',"
        " play_store_url='https://play.google.com/store/apps/details?id=com.bench.app')\n"
        "k, full = api_key_create(app=a)\n"
        "print('APP', u.organization_id, a.id, full)\n"))
    line = next(line for line in out.splitlines() if line.startswith("APP "))
    _, organization_id, app_id, key = line.split()
    return organization_id, app_id, key


def code_label(code: Path) -> str:
    """The tree's directory and commit, e.g. `before@87b7d8c`, with `+changes` when its working
    tree differs from the commit."""
    commit = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(code), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True).stdout
    return f"{code.name}@{commit}{'+changes' if dirty.strip() else ''}"


class Process:
    """A command of the README (`celery -A attribution_site worker ...`, `gunicorn ...`) run
    from the tree at `code` with this virtualenv's executables, in a session of its own (so it
    ends with its children), its output kept in a file."""

    def __init__(self, command: str, *, code: Path, env: dict[str, str], log: Path):
        argv = shlex.split(command)
        argv[0] = str(Path(PYTHON).with_name(argv[0]))
        self.command, self.log = command, log
        with open(log, "wb") as out:
            self.popen = subprocess.Popen(argv, cwd=code, env=env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = self.popen.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            if self.popen.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"{self.command!r} did not say {text!r}:\n"
                                 f"{self.output()[-3000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.popen.wait()


def wait_for_http(port: int, path: str = "/healthz", timeout: float = 30.0) -> None:
    import http.client

    deadline = time.monotonic() + timeout
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"nothing answered 200 on port {port}{path}")
        time.sleep(0.2)


# --- A receiver of postbacks and webhooks -----------------------------------------------------

@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A threaded HTTP server on 127.0.0.1 (TLS with `tls`) that answers 200 at once and keeps
    every request: a receiver as fast as the machine allows."""

    def __init__(self, *, tls: ssl.SSLContext | None = None):
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with receiver._lock:
                    receiver.requests.append(Received(self.command, self.path,
                                                      dict(self.headers.items()), body))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"ok")
                self.close_connection = True

            do_GET = do_POST = _handle

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 128
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def trusted_tls() -> Iterator[tuple[ssl.SSLContext, str]]:
    """A server context for 127.0.0.1 signed by a fresh CA, and the path of a CA bundle that
    trusts it (for the senders' REQUESTS_CA_BUNDLE)."""
    import trustme

    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    with tempfile.TemporaryDirectory(prefix="attr-bench-ca-") as directory:
        bundle = Path(directory) / "ca.pem"
        ca.cert_pem.write_to_path(str(bundle))
        yield context, str(bundle)
