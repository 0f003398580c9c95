"""The outbox's cycle (outbox/claim.py, record.py, sweep.py, enqueue.py), over a kind declared
here on Apple Ads' claim tables with its own task and give-up rule, so what is tested is the
outbox's, not a kind's. The embedded default (no broker) runs each message in-process, so the
test task records which rows were sent; one test checks the real message on Redis."""

from __future__ import annotations

import ast
import base64
import json
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery import shared_task
from django.conf import settings as django_settings
from django.utils import timezone

import apple_ads.enqueue
import delivery.enqueue
import outbox
from apple_ads.models import Attempt, Claim
from attribution_site.celery import app as celery_app
from outbox import sweep
from outbox.claim import work_claim, work_due
from outbox.kind import Kind
from outbox.record import Result, attempt_record

SENT: list[str] = []


@shared_task(name="tests.outbox.try")
def outbox_try(work_id: str) -> None:
    SENT.append(work_id)


def _give_up_after_three(row, now):
    return {"state": "failed", "last_error": "three strikes"} if row.attempts_made >= 3 else None


KIND = Kind(name="test work", work_model=Claim, attempt_model=Attempt, attempt_of="claim",
            send_task="tests.outbox.try", timeout_setting="APPLE_ADS_TIMEOUT_SECONDS",
            grace_setting="APPLE_ADS_SWEEP_GRACE_SECONDS", exhausted=_give_up_after_three)


@pytest.fixture(autouse=True)
def embedded_default():
    """The broker-less default (CELERY_TASK_ALWAYS_EAGER), whatever this run's REDIS_URL."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    SENT.clear()
    yield
    celery_app.conf.task_always_eager = previous


def work_row(app, **fields) -> Claim:
    now = timezone.now()
    values = {"state": "pending", "next_attempt_at": now, "updated_at": now}
    values.update(fields)
    return Claim.objects.create(app=app, install_id=uuid.uuid4(), **values)


def test_a_due_row_is_claimed_once_and_its_attempt_numbered(app):
    row = work_row(app)
    now = timezone.now()
    first = work_claim(KIND, row, now=now)
    assert work_claim(KIND, row, now=now) is None  # a duplicated message sends nothing twice
    row.refresh_from_db()
    assert first.number == 1 and row.state == "sending" and row.attempts_made == 1
    lease = timedelta(seconds=2 * django_settings.APPLE_ADS_TIMEOUT_SECONDS + 1)
    assert row.lease_expires_at == now + lease
    assert Attempt.objects.filter(claim=row).count() == 1


def test_a_row_ahead_of_its_schedule_or_not_pending_is_not_due(app):
    now = timezone.now()
    later = work_row(app, next_attempt_at=now + timedelta(minutes=1))
    done = work_row(app, state="attributed")
    assert work_due(KIND, later.id, now=now) is None
    assert work_due(KIND, done.id, now=now) is None
    assert work_due(KIND, uuid.uuid4(), now=now) is None
    assert work_due(KIND, later.id, now=now + timedelta(minutes=2)) == later


def test_a_final_result_closes_the_row_and_stores_the_kinds_fields(app):
    row = work_row(app, token="secret")
    attempt = work_claim(KIND, row, now=timezone.now())
    done_at = timezone.now()
    moved = attempt_record(KIND, row, attempt, Result(
        state="attributed", retry_in=None, attempt={"status_code": 200, "reading": "attributed"},
        work={"token": ""}), now=done_at)
    row.refresh_from_db()
    attempt.refresh_from_db()
    assert moved and row.state == "attributed" and row.completed_at == done_at
    assert row.lease_expires_at is None and row.next_attempt_at is None and row.token == ""
    assert attempt.status_code == 200 and attempt.finished_at == done_at


def test_a_retry_is_pending_again_under_the_same_id_with_its_due_time(
        app, django_capture_on_commit_callbacks):
    row = work_row(app)
    attempt = work_claim(KIND, row, now=timezone.now())
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt_record(KIND, row, attempt, Result(state="failed", retry_in=30,
                                                  attempt={"status_code": 503}), now=now)
    row.refresh_from_db()
    assert row.state == "pending" and row.next_attempt_at == now + timedelta(seconds=30)
    assert row.completed_at is None and row.lease_expires_at is None
    assert len(callbacks) == 1  # the retry's message, sent only once the row is committed


def test_a_result_recorded_after_the_sweep_took_the_row_back_is_only_logged(app):
    row = work_row(app)
    attempt = work_claim(KIND, row, now=timezone.now())
    sweep.work_sweep(KIND, now=timezone.now() + timedelta(hours=1), grace_seconds=3600)
    moved = attempt_record(KIND, row, attempt, Result(state="attributed", retry_in=None,
                                                      attempt={"status_code": 200}),
                           now=timezone.now())
    row.refresh_from_db()
    attempt.refresh_from_db()
    assert not moved and row.state != "attributed"
    assert attempt.status_code == 200


def test_the_sweep_takes_back_a_row_whose_worker_died_and_sends_it_again(app):
    past = timezone.now() - timedelta(minutes=5)
    row = work_row(app, state="sending", attempts_made=1, lease_expires_at=past)
    Attempt.objects.create(claim=row, number=1, started_at=past)
    sent = sweep.work_sweep(KIND, now=timezone.now(), grace_seconds=3600)
    row.refresh_from_db()
    assert sent == [str(row.id)] and SENT == [str(row.id)]
    assert row.state == "pending" and row.lease_expires_at is None
    interrupted = Attempt.objects.get(claim=row)
    assert interrupted.error_message.startswith("Interrupted") and interrupted.finished_at


def test_the_sweep_gives_up_a_row_out_of_tries_by_the_kinds_rule(app):
    past = timezone.now() - timedelta(minutes=5)
    row = work_row(app, state="sending", attempts_made=3, lease_expires_at=past)
    assert sweep.work_sweep(KIND, now=timezone.now(), grace_seconds=3600) == []
    row.refresh_from_db()
    assert row.state == "failed" and row.last_error == "three strikes"
    assert row.completed_at is not None and row.next_attempt_at is None and SENT == []


def test_a_held_lease_is_left_alone(app):
    row = work_row(app, state="sending", attempts_made=1,
                   lease_expires_at=timezone.now() + timedelta(minutes=1))
    assert sweep.work_sweep(KIND, now=timezone.now(), grace_seconds=0) == []
    row.refresh_from_db()
    assert row.state == "sending"


def test_a_pending_row_is_resent_once_per_grace_period_after_its_due_time(app):
    now = timezone.now()
    row = work_row(app, next_attempt_at=now - timedelta(seconds=200),
                   updated_at=now - timedelta(seconds=200))
    fresh = work_row(app, next_attempt_at=now - timedelta(seconds=10),
                     updated_at=now - timedelta(seconds=10))
    assert sweep.work_sweep(KIND, now=now, grace_seconds=120) == [str(row.id)]
    assert sweep.work_sweep(KIND, now=now + timedelta(seconds=60), grace_seconds=120) == []
    later = now + timedelta(seconds=121)
    assert sweep.work_sweep(KIND, now=later, grace_seconds=120) == [str(row.id), str(fresh.id)]
    row.refresh_from_db()
    assert row.next_attempt_at == now - timedelta(seconds=200)  # still overdue for all to see


def test_without_a_broker_there_is_no_grace(settings):
    settings.APPLE_ADS_SWEEP_GRACE_SECONDS = 60
    assert sweep.grace_seconds(KIND) == 0


@pytest.mark.redis
def test_with_a_broker_a_retry_is_a_countdown_message_sent_by_the_tasks_name(
        app, settings, django_capture_on_commit_callbacks):
    celery_app.conf.task_always_eager = False
    settings.APPLE_ADS_SWEEP_GRACE_SECONDS = 60
    assert sweep.grace_seconds(KIND) == 60
    broker = redis.Redis.from_url(django_settings.REDIS_URL)
    broker.delete("celery")
    row = work_row(app)
    attempt = work_claim(KIND, row, now=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        attempt_record(KIND, row, attempt, Result(state="failed", retry_in=30, attempt={}),
                       now=timezone.now())
    message = json.loads(broker.lpop("celery"))
    broker.delete("celery")
    assert message["headers"]["task"] == "tests.outbox.try"
    assert message["headers"]["eta"] is not None
    assert json.loads(base64.b64decode(message["body"]))[0] == [str(row.id)]
    assert SENT == []


def test_no_enqueueing_imports_a_tasks_module():
    """Messages go by the task's name, so enqueue -> tasks -> services -> enqueue is no loop:
    not even an import made at call time."""
    sources = [*Path(outbox.__file__).parent.glob("*.py"),
               Path(delivery.enqueue.__file__), Path(apple_ads.enqueue.__file__)]
    for source in sources:
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not [name for name in names if name.endswith(".tasks")], source
