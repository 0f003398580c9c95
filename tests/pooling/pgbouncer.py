"""A PgBouncer in transaction mode in front of a PostgreSQL server, for the tests and for CI's
run of the whole suite through it (docs/pooling.md).

    python -m tests.pooling.pgbouncer --server 127.0.0.1:5432 --port 6439 -- make test

starts one, runs the command with DATABASE_URL's host and port pointed at it,
DATABASE_POOL=pgbouncer and PGBOUNCER_SERVER_URL naming the server itself (for a test that must
see one process's own backends), stops it and exits with the command's status. PgBouncer refuses
to run as root, so as root it runs as the `postgres` user. Imports nothing of Django.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

CONFIG = """\
[databases]
* = host={server_host} port={server_port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {directory}/users.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
server_idle_timeout = 5
logfile = {directory}/pgbouncer.log
pidfile = {directory}/pgbouncer.pid
"""


def binary() -> str | None:
    return shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(p, os.X_OK)),
        None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(*, server_host: str, server_port: int, user: str = "postgres",
            port: int | None = None) -> Iterator[int]:
    """PgBouncer on 127.0.0.1:<port> forwarding every database to the server; the port."""
    executable = binary()
    if executable is None:
        raise RuntimeError("pgbouncer is not installed (apt-get install pgbouncer)")
    port = port or free_port()
    directory = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    (directory / "pgbouncer.ini").write_text(CONFIG.format(
        server_host=server_host, server_port=server_port, port=port, directory=directory))
    (directory / "users.txt").write_text(f'"{user}" ""\n')
    run_as: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres")
        for path in directory.iterdir():
            shutil.chown(path, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    process = subprocess.Popen([*run_as, executable, str(directory / "pgbouncer.ini")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, process, directory / "pgbouncer.log")
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


def _wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = log.read_text() if log.exists() else ""
            raise RuntimeError(f"pgbouncer exited with {process.returncode}:\n{text}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"pgbouncer did not listen on {port}")


def through(database_url: str, port: int) -> str:
    """The same database URL, reached through PgBouncer on 127.0.0.1:<port>."""
    parts = urlsplit(database_url)
    login = parts.netloc.rpartition("@")[0]
    netloc = f"{login}@127.0.0.1:{port}" if login else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    database_url = os.environ.get("DATABASE_URL", "")
    server = urlsplit(database_url)
    if not command or server.scheme not in ("postgres", "postgresql"):
        parser.error("needs DATABASE_URL=postgres://... and a command after --")
    with running(server_host=server.hostname or "127.0.0.1", server_port=server.port or 5432,
                 user=server.username or "postgres", port=args.port) as port:
        env = dict(os.environ, DATABASE_URL=through(database_url, port),
                   DATABASE_POOL="pgbouncer", PGBOUNCER_SERVER_URL=database_url)
        print(f"== through PgBouncer (transaction mode) on 127.0.0.1:{port}", flush=True)
        return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main())
