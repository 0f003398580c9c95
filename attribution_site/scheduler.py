"""Beat's schedule run by the web process itself on the embedded default (docs/decisions.md,
"The embedded default runs beat's schedule in the web process").

Without REDIS_URL there is no broker: a task runs in the process that sends it
(CELERY_TASK_ALWAYS_EAGER), and no worker or beat can run beside `make run`. So the web process
runs CELERY_BEAT_SCHEDULE itself, in one thread: each entry when its own Celery schedule object
(an interval or a crontab) says it is due, asked the way beat asks (`is_due`), the task run in
this thread, a failure logged (Celery logs a task's exception with its traceback) and the loop
going on. A retry, which a worker would get as a countdown message, waits here for its time
(`run_later`), so it goes when the delivery log says it will; should the process end first,
the sweep sends it.

The WSGI module starts it (`start_if_embedded`), and only a serving process loads that module:
runserver's autoreloader parent never does, nor do tests, management commands or Celery. One
process per database runs the schedule, the one holding a lock file (`flock`, released when
the process ends); the others (gunicorn's other workers, a second `make run` on the same file)
run only their own retries, and take the schedule over when the holder is gone.
"""

from __future__ import annotations

import copy
import fcntl
import functools
import hashlib
import heapq
import itertools
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from celery.schedules import BaseSchedule, schedule
from django.conf import settings
from django.db import close_old_connections, connections

from attribution_site.celery import RoutineTaskFilter
from attribution_site.celery import app as celery_app

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]
# The longest the thread sleeps without looking: a crontab's next run may be hours away, and a
# clock that jumps (a laptop waking up) is noticed within this.
MAX_SLEEP_SECONDS = 60.0
# How often a process without the lock tries to take it over.
LOCK_RETRY_SECONDS = 5.0


@dataclass(frozen=True)
class Run:
    """One task to run now: a schedule entry's, or a retry's."""

    task: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class _Entry:
    name: str
    run: Run
    schedule: BaseSchedule  # a copy of its own, reading the scheduler's clock
    last_run_at: datetime


def _reading(clock: Clock, value: Any) -> BaseSchedule:
    """The entry's schedule object as beat makes it (seconds or a timedelta: an interval), a
    copy of its own that reads `clock` instead of Celery's."""
    if isinstance(value, int | float | timedelta):
        return schedule(value, nowfun=clock, app=celery_app)
    reading = copy.copy(value)
    reading.nowfun = clock
    reading.app = celery_app
    return reading


class Schedule:
    """What is due at the clock's time: the entries of a beat schedule, each by its own
    schedule object, and the retries waiting for their time. Runs nothing itself."""

    def __init__(self, beat_schedule: Mapping[str, Mapping[str, Any]], *, clock: Clock):
        self.clock = clock
        start = clock()
        # As beat starts without a schedule file: an interval's first run is one interval
        # after the start, a crontab's at its next time.
        self._entries = [
            _Entry(name=name, schedule=_reading(clock, spec["schedule"]), last_run_at=start,
                   run=Run(task=spec["task"], args=tuple(spec.get("args", ())),
                           kwargs=dict(spec.get("kwargs", {}))))
            for name, spec in beat_schedule.items()]
        self._later: list[tuple[datetime, int, Run]] = []
        self._order = itertools.count()  # equal times keep the order they were added in
        self._lock = threading.Lock()  # retries are added from request threads

    def run_later(self, run: Run, *, delay: float) -> None:
        at = self.clock() + timedelta(seconds=max(0.0, delay))
        with self._lock:
            heapq.heappush(self._later, (at, next(self._order), run))

    def due(self, *, entries: bool = True) -> tuple[list[Run], float]:
        """The runs due now, retries first, each entry among them marked as run now; and the
        seconds until the next may be due. With `entries` False (another process runs the
        schedule) the retries alone."""
        now = self.clock()
        runs: list[Run] = []
        waits = [MAX_SLEEP_SECONDS]
        with self._lock:
            while self._later and self._later[0][0] <= now:
                runs.append(heapq.heappop(self._later)[2])
            if self._later:
                waits.append((self._later[0][0] - now).total_seconds())
        if entries:
            for entry in self._entries:
                is_due, next_seconds = entry.schedule.is_due(entry.last_run_at)
                if is_due:
                    entry.last_run_at = now
                    runs.append(entry.run)
                waits.append(next_seconds)
        return runs, max(0.0, min(waits))

    def tasks(self) -> tuple[str, ...]:
        return tuple(entry.run.task for entry in self._entries)


class ScheduleLock:
    """An exclusive `flock` on a file: whoever holds it runs the schedule. The system releases
    it when the holding process ends, however it ends."""

    def __init__(self, path: Path):
        self.path = path
        self._file: IO[str] | None = None

    def acquire(self) -> bool:
        if self._file is not None:
            return True
        try:
            handle = open(self.path, "a")  # kept open while the lock is held
        except OSError:
            logger.warning("cannot open the schedule's lock file %s", self.path, exc_info=True)
            return False
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the last descriptor releases the lock
            self._file = None


def lock_path(database: Mapping[str, Any]) -> Path:
    """One lock per database, shared by every process of this machine that uses it."""
    name = str(database.get("NAME") or "")
    if database.get("ENGINE", "").endswith("sqlite3"):
        name = os.path.abspath(name)
    identity = "|".join([database.get("ENGINE", ""), name, str(database.get("HOST") or ""),
                         str(database.get("PORT") or "")])
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"attribution-schedule-{digest}.lock"


@functools.cache
def _tasks_registered() -> None:
    """Import every app's tasks module (Celery's autodiscovery), as a worker does at start."""
    celery_app.loader.import_default_modules()


def run_task(run: Run) -> None:
    """Run the task in this thread, as a worker would, around it what a request gets around
    it (connections past their age or broken closed). Never raises: Celery logs a task's
    failure with its traceback, and anything else is logged here."""
    close_old_connections()
    try:
        _tasks_registered()
        celery_app.tasks[run.task].apply(args=run.args, kwargs=dict(run.kwargs))
    except Exception:  # noqa: BLE001 - whatever one task does, the schedule goes on
        logger.exception("the scheduled task %s could not run", run.task)
    finally:
        close_old_connections()


class EmbeddedScheduler:
    """The thread that runs a `Schedule` while it holds the lock (and its own retries
    whether or not it does)."""

    def __init__(self, schedule: Schedule, *, lock: ScheduleLock,
                 run: Callable[[Run], None] = run_task):
        self.schedule = schedule
        self.lock = lock
        self.pid = os.getpid()
        self._run = run
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> EmbeddedScheduler:
        self._thread = threading.Thread(target=self._loop, name="embedded-schedule",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stop.is_set()

    def run_later(self, run: Run, *, delay: float) -> None:
        self.schedule.run_later(run, delay=delay)
        self._wake.set()  # it may be asleep until a later time

    def _loop(self) -> None:
        holding = False
        try:
            while not self._stop.is_set():
                if not holding and self.lock.acquire():
                    holding = True
                    logger.info("running beat's schedule in this process (%d entries; no "
                                "REDIS_URL, so no beat or worker)", len(self.schedule.tasks()))
                runs, wait = self.schedule.due(entries=holding)
                for run in runs:
                    if self._stop.is_set():
                        return
                    self._run(run)
                if runs:
                    continue  # they took time: look again before sleeping
                self._wake.wait(wait if holding else min(wait, LOCK_RETRY_SECONDS))
                self._wake.clear()
        finally:
            self.lock.release()
            connections.close_all()  # this thread's own


_starting = threading.Lock()
_current: EmbeddedScheduler | None = None


def start_if_embedded() -> EmbeddedScheduler | None:
    """Start this process's schedule thread when tasks run in-process (no REDIS_URL), once
    per process; with a broker, beat runs the schedule and this does nothing."""
    global _current
    if not celery_app.conf.task_always_eager:
        return None
    with _starting:
        if _current is None or _current.pid != os.getpid():
            scheduler = EmbeddedScheduler(
                Schedule(settings.CELERY_BEAT_SCHEDULE, clock=celery_app.now),
                lock=ScheduleLock(lock_path(settings.DATABASES["default"])))
            # What every entry logs when it succeeds would bury the requests' lines; failures
            # and warnings still show. Beat's own log keeps its routine tasks out the same way.
            logging.getLogger("celery.app.trace").addFilter(
                RoutineTaskFilter(tasks=scheduler.schedule.tasks()))
            _current = scheduler.start()
    return _current


def run_later(task: str, args: tuple, *, delay: float) -> bool:
    """Run the task in `delay` seconds in this process's schedule thread, as a worker runs a
    countdown message. False when no schedule thread runs in this process (a shell, a
    management command, a test): the work is then the sweep's."""
    scheduler = _current
    if scheduler is None or scheduler.pid != os.getpid() or not scheduler.alive():
        return False
    scheduler.run_later(Run(task=task, args=tuple(args)), delay=delay)
    return True
