"""The embedded default's schedule thread (attribution_site/scheduler.py), turned on by these
tests as the web process turns it on: a failed postback tried again in-process when its retry
is due, and the sweep entry sending a due retry while a failing scheduled task is logged and
the schedule goes on. With no beat and no worker: tasks run in-process."""

from __future__ import annotations

import logging

import pytest
from celery import shared_task

from attribution_site import scheduler
from attribution_site.celery import app as celery_app
from attribution_site.scheduler import EmbeddedScheduler, Schedule, ScheduleLock
from delivery.models import Delivery
from tests.delivery.helpers import install_event, make_postback, publish, wait_until
from tests.delivery.receivers import Reply


@shared_task(name="tests.scheduler.fails")
def scheduled_failure() -> None:
    raise RuntimeError("a scheduled task that fails")


@pytest.fixture
def embedded(monkeypatch, settings):
    """The broker-less default (tasks in-process) whatever this run's REDIS_URL, with a
    retry one second after a failed try."""
    monkeypatch.setitem(celery_app.conf, "task_always_eager", True)
    settings.DELIVERY_RETRY_DELAYS = [1]


@pytest.fixture
def start(tmp_path, monkeypatch):
    """Start a schedule thread for this test, as the web process's own; stopped after it."""
    started = []

    def start_schedule(beat_schedule: dict) -> EmbeddedScheduler:
        thread = EmbeddedScheduler(Schedule(beat_schedule, clock=celery_app.now),
                                   lock=ScheduleLock(tmp_path / "schedule.lock")).start()
        monkeypatch.setattr(scheduler, "_current", thread)
        started.append(thread)
        return thread

    yield start_schedule
    for thread in started:
        thread.stop()


def failing_then_ok(receiver_factory):
    return receiver_factory(Reply(status=503), default=Reply(status=200))


def second_request_then_stop(receiver, thread: EmbeddedScheduler):
    """Wait for the receiver's second request, then stop the thread, which lets the task that
    sent it finish recording it. The database is read only after that: SQLite's in-memory test
    database (shared cache) answers a read that meets another thread's write with "table is
    locked" at once instead of waiting, as a database file waits its turn."""
    requests = wait_until(lambda: receiver.requests[:2] if len(receiver.requests) >= 2
                          else None)
    thread.stop()
    return requests


@pytest.mark.django_db(transaction=True)
def test_a_failed_postback_is_tried_again_in_process_when_its_retry_is_due(
        app, embedded, start, receiver_factory):
    receiver = failing_then_ok(receiver_factory)
    thread = start({})  # no entries at all: the retry is the thread's own
    make_postback(app, receiver.url("/pb?d={device_id}"))
    publish(install_event(app))  # the first try, in this process after the commit: a 503

    first, again = second_request_then_stop(receiver, thread)
    assert (first.path, again.path) == ("/pb?d=gaid-1234", "/pb?d=gaid-1234")
    delivery = Delivery.objects.get()
    assert delivery.state == "succeeded"
    assert delivery.attempts_made == 2 and delivery.next_attempt_at is None


@pytest.mark.django_db(transaction=True)
def test_the_sweep_entry_sends_a_due_retry_and_a_failing_task_does_not_stop_the_schedule(
        app, embedded, start, receiver_factory, caplog):
    receiver = failing_then_ok(receiver_factory)
    make_postback(app, receiver.url("/pb?d={device_id}"))
    publish(install_event(app))  # no schedule thread yet: the retry is left to the sweep
    assert Delivery.objects.get().state == "pending"

    with caplog.at_level(logging.INFO):
        thread = start({"fails": {"task": "tests.scheduler.fails", "schedule": 0.2},
                        "outbox-sweep": {"task": "outbox.sweep", "schedule": 0.2}})
        second_request_then_stop(receiver, thread)
    delivery = Delivery.objects.get()
    assert delivery.state == "succeeded"
    assert delivery.attempts_made == 2 and len(receiver.requests) == 2
    failures = [record for record in caplog.records if record.levelno == logging.ERROR
                and "tests.scheduler.fails" in record.getMessage()]
    assert failures and "a scheduled task that fails" in failures[0].exc_text
