"""A PostgreSQL primary and its streaming replica, made for the tests (docs/replica.md,
"Tests"): two clusters of the machine's own PostgreSQL server binaries on free local ports.

The primary comes from initdb (trust logins, replication allowed from 127.0.0.1), the replica
from `pg_basebackup -R` of it, which writes the standby signal and the primary's address, so
it starts streaming at once. Both live under one temporary directory, listen on 127.0.0.1 only
(and a socket in that directory), and run as the postgres user when the tests run as root
(PostgreSQL refuses root). The machine's own cluster is never touched: it allows no
replication connections, which is why the tests make their own pair.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg

SERVER_PROGRAMS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
FALLBACK_BINDIR = Path("/usr/lib/postgresql/15/bin")
CONFIG = """
listen_addresses = '127.0.0.1'
unix_socket_directories = '{sockets}'
wal_level = replica
max_wal_senders = 4
hot_standby = on
# Test clusters: nothing here must survive a crash of the machine.
fsync = off
full_page_writes = off
"""


def server_bindir() -> Path | None:
    """Where the machine's PostgreSQL server programs are (`pg_config --bindir`, else Debian's
    PostgreSQL 15), or None when they, or a user to run them as, are missing."""
    if os.geteuid() == 0 and (shutil.which("runuser") is None or not _user_exists("postgres")):
        return None
    candidates = [FALLBACK_BINDIR]
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if found.returncode == 0:
            candidates.insert(0, Path(found.stdout.strip()))
    for bindir in candidates:
        if all(os.access(bindir / program, os.X_OK) for program in SERVER_PROGRAMS):
            return bindir
    return None


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Cluster:
    name: str
    bindir: Path
    data: Path
    port: int

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname=database, autocommit=True, connect_timeout=5)

    def query(self, sql: str, params=(), database: str = "postgres"):
        """The first row of `sql` (None for a statement without rows), on a connection of its
        own."""
        with self.connect(database) as connection:
            cursor = connection.execute(sql, params)
            return cursor.fetchone() if cursor.description else None

    def start(self) -> None:
        _run(self.bindir, "pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data),
             "-l", str(self.data.parent / f"{self.name}.log"), "-o", f"-p {self.port}")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            _run(self.bindir, "pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data))

    def log(self) -> str:
        path = self.data.parent / f"{self.name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


@dataclass
class ReplicaPair:
    primary: Cluster
    replica: Cluster

    def create_database(self, name: str) -> None:
        with self.primary.connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')

    def wait_replayed(self, timeout: float = 60.0) -> None:
        """Until the replica has replayed everything the primary had written when asked."""
        (written,) = self.primary.query("SELECT pg_current_wal_lsn()::text")
        deadline = time.monotonic() + timeout
        while not self.replica.query("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn",
                                     [written])[0]:
            if time.monotonic() > deadline:
                raise AssertionError(f"the replica did not replay up to {written}:\n"
                                     f"{self.replica.log()[-3000:]}")
            time.sleep(0.05)

    def pause_replay(self) -> None:
        self.replica.query("SELECT pg_wal_replay_pause()")
        self._wait_replay_state("paused")

    def resume_replay(self) -> None:
        self.replica.query("SELECT pg_wal_replay_resume()")
        self._wait_replay_state("not paused")

    def _wait_replay_state(self, state: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self.replica.query("SELECT pg_get_wal_replay_pause_state()")[0] != state:
            assert time.monotonic() < deadline, f"replay never became {state!r}"
            time.sleep(0.05)


@contextmanager
def replica_pair(bindir: Path) -> Iterator[ReplicaPair]:
    """A running primary and streaming replica, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="attr-replica-"))
    _own(root)
    primary = Cluster("primary", bindir, root / "primary", free_port())
    replica = Cluster("replica", bindir, root / "replica", free_port())
    try:
        _run(bindir, "initdb", "-D", str(primary.data), "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C.UTF-8")
        with open(primary.data / "postgresql.conf", "a") as conf:
            conf.write(CONFIG.format(sockets=root))
        with open(primary.data / "pg_hba.conf", "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        primary.start()
        # -R: standby.signal and primary_conninfo; -X stream: the WAL written meanwhile too.
        _run(bindir, "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U",
             "postgres", "-D", str(replica.data), "-R", "-X", "stream", "-c", "fast")
        replica.start()
        pair = ReplicaPair(primary, replica)
        pair.wait_replayed()
        yield pair
    finally:
        for cluster in (replica, primary):
            try:
                cluster.stop()
            except RuntimeError:
                pass  # already stopped by a test, or never started; the removal follows
        shutil.rmtree(root, ignore_errors=True)


def _own(path: Path) -> None:
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(path, user.pw_uid, user.pw_gid)


def _run(bindir: Path, program: str, *args: str) -> None:
    argv = [str(bindir / program), *args]
    if os.geteuid() == 0:  # PostgreSQL's programs refuse to run as root
        argv = ["runuser", "-u", "postgres", "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {done.returncode}:\n{done.stdout}"
                           f"{done.stderr}")
