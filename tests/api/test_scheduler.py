"""Beat's schedule in the web process on the embedded default (attribution_site/scheduler.py):
which entries are due as a moved clock passes their intervals and crontabs, retries held until
their time, the lock that lets one process of a database run the schedule. The thread itself
sending a postback's retry: tests/delivery/test_embedded_schedule.py; `make run` doing all of
it with no beat or worker: tests/browser/test_make_run.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from celery.schedules import crontab
from django.conf import settings as django_settings

from attribution_site import scheduler
from attribution_site.celery import app as celery_app
from attribution_site.scheduler import Run, Schedule, ScheduleLock

NOON = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class MovedClock:
    """The scheduler's clock, moved by the test."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def move(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def due_tasks(schedule: Schedule, **kwargs) -> list[str]:
    return [run.task for run in schedule.due(**kwargs)[0]]


# --- Which entries are due --------------------------------------------------------------------

def test_an_interval_entry_is_due_once_each_time_its_interval_passes():
    clock = MovedClock(NOON)
    schedule = Schedule({"refresh": {"task": "analytics.rollups_refresh", "schedule": 2.0}},
                        clock=clock)
    runs, wait = schedule.due()
    assert runs == [] and wait == 2.0  # as beat starts: one interval after the start
    clock.move(seconds=1.5)
    assert due_tasks(schedule) == []
    clock.move(seconds=0.5)
    assert due_tasks(schedule) == ["analytics.rollups_refresh"]
    assert due_tasks(schedule) == []  # run now: due again an interval later
    clock.move(seconds=2)
    assert due_tasks(schedule) == ["analytics.rollups_refresh"]


def test_a_crontab_entry_is_due_at_its_time_of_day():
    clock = MovedClock(NOON)
    schedule = Schedule({"prune": {"task": "tracking.prune_clicks",
                                   "schedule": crontab(hour=3, minute=17)}}, clock=clock)
    assert due_tasks(schedule) == []
    clock.now = datetime(2026, 1, 2, 3, 16, 59, tzinfo=UTC)
    assert due_tasks(schedule) == []
    clock.now = datetime(2026, 1, 2, 3, 17, tzinfo=UTC)
    assert due_tasks(schedule) == ["tracking.prune_clicks"]
    clock.move(minutes=30)
    assert due_tasks(schedule) == []
    clock.now = datetime(2026, 1, 3, 3, 17, 30, tzinfo=UTC)
    assert due_tasks(schedule) == ["tracking.prune_clicks"]


def test_a_long_sleep_runs_a_missed_entry_once_not_once_per_missed_interval():
    clock = MovedClock(NOON)
    schedule = Schedule({"sweep": {"task": "delivery.sweep", "schedule": 60.0}}, clock=clock)
    clock.move(hours=3)
    assert due_tasks(schedule) == ["delivery.sweep"]
    assert due_tasks(schedule) == []


def test_a_retry_is_held_until_its_time_and_comes_before_the_entries():
    clock = MovedClock(NOON)
    schedule = Schedule({"sweep": {"task": "delivery.sweep", "schedule": 60.0}}, clock=clock)
    schedule.run_later(Run("delivery.send", ("d-1",)), delay=59)
    runs, wait = schedule.due()
    assert runs == [] and wait == 59
    clock.move(seconds=58)
    assert due_tasks(schedule) == []
    clock.move(seconds=2)
    runs, _ = schedule.due()
    assert runs == [Run("delivery.send", ("d-1",)), Run("delivery.sweep")]
    assert schedule.due() == ([], 60.0)


def test_a_process_without_the_lock_runs_its_retries_but_not_the_entries():
    clock = MovedClock(NOON)
    schedule = Schedule({"sweep": {"task": "delivery.sweep", "schedule": 60.0}}, clock=clock)
    schedule.run_later(Run("delivery.send", ("d-1",)), delay=1)
    clock.move(minutes=2)
    assert due_tasks(schedule, entries=False) == ["delivery.send"]
    assert due_tasks(schedule) == ["delivery.sweep"]


def test_within_a_day_every_entry_of_beats_schedule_comes_due_and_its_task_exists():
    clock = MovedClock(NOON)
    schedule = Schedule(django_settings.CELERY_BEAT_SCHEDULE, clock=clock)
    seen = set()
    for _ in range(25 * 60):  # a day and an hour, a minute at a time
        clock.move(minutes=1)
        seen.update(due_tasks(schedule))
    expected = {entry["task"] for entry in django_settings.CELERY_BEAT_SCHEDULE.values()}
    assert seen == expected
    celery_app.loader.import_default_modules()
    assert expected <= set(celery_app.tasks)


def test_one_process_of_a_database_holds_the_lock_until_it_lets_go(tmp_path):
    path = scheduler.lock_path({"ENGINE": "django.db.backends.sqlite3",
                                "NAME": str(tmp_path / "db.sqlite3")})
    assert path == scheduler.lock_path({"ENGINE": "django.db.backends.sqlite3",
                                        "NAME": str(tmp_path / "." / "db.sqlite3")})
    assert path != scheduler.lock_path({"ENGINE": "django.db.backends.sqlite3",
                                        "NAME": str(tmp_path / "other.sqlite3")})
    first, second = ScheduleLock(tmp_path / "schedule.lock"), ScheduleLock(
        tmp_path / "schedule.lock")
    assert first.acquire() and first.acquire()
    assert not second.acquire()
    first.release()
    assert second.acquire()
    second.release()


def test_with_a_broker_nothing_starts(monkeypatch):
    monkeypatch.setitem(celery_app.conf, "task_always_eager", False)
    assert scheduler.start_if_embedded() is None
    assert scheduler.run_later("delivery.send", ("d-1",), delay=1) is False


def test_the_web_process_starts_one_schedule_thread_however_often_it_asks(
        monkeypatch, settings, tmp_path):
    monkeypatch.setitem(celery_app.conf, "task_always_eager", True)
    settings.CELERY_BEAT_SCHEDULE = {}  # the thread only, none of the real jobs
    monkeypatch.setattr(scheduler, "_current", None)
    monkeypatch.setattr(scheduler, "lock_path", lambda database: tmp_path / "schedule.lock")
    started = scheduler.start_if_embedded()
    try:
        assert scheduler.start_if_embedded() is started and started.alive()
        assert scheduler.run_later("delivery.send", ("d-1",), delay=3600) is True
    finally:
        started.stop()
    assert scheduler.run_later("delivery.send", ("d-1",), delay=3600) is False
