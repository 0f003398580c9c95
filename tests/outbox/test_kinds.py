"""The outbox's one home for what every kind shares (docs/outbox.md): the registry every app's
`enqueue` declares its kinds in, the common rows (outbox/models.py) every kind's tables carry
exactly, one set of task options, and one beat sweep over every registered kind."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from celery import shared_task
from django.conf import settings
from django.db import connection
from django.utils import timezone

from apple_ads.models import Attempt, Claim
from attribution_site.celery import app as celery_app
from outbox import sweep
from outbox.kind import Kind, describe, kinds
from outbox.models import AttemptRow, CallAttemptRow, WorkRow
from outbox.tasks import TASK_OPTIONS
from privacy.models import RequestRun, RequestRunAttempt

ROOT = Path(__file__).resolve().parents[2]
KIND_NAMES = {"delivery", "Apple Ads claim", "Google Ads claim", "cost pull", "raw-data export run",
              "privacy request run", "privacy status callback"}
SENT: list[str] = []


@shared_task(name="tests.outbox.kinds_try")
def kinds_try(work_id: str) -> None:
    SENT.append(work_id)


def _column(field) -> tuple:
    """What a field is in the database and to the cycle: its type, null, default."""
    default = field.default() if callable(field.default) else field.default
    return (field.db_type(connection), field.null,
            type(default) if callable(field.default) else default)


def test_every_kind_is_registered_once_django_starts():
    assert {kind.name for kind in kinds()} == KIND_NAMES
    described = {row["name"]: row for row in describe()}
    assert described["delivery"]["work"] == "delivery_delivery"
    assert described["delivery"]["task"] == "delivery.dispatch"
    assert described["privacy request run"]["attempts"] == "privacy_requestrunattempt"
    assert described["privacy request run"]["timeout_setting"] == "PRIVACY_RUN_TIMEOUT_SECONDS"


@pytest.mark.parametrize("kind", kinds(), ids=lambda kind: kind.name)
def test_every_kinds_rows_carry_the_common_fields_exactly(kind):
    """`attempts_made` once had two types; now every kind's column is the abstract row's."""
    assert issubclass(kind.work_model, WorkRow) and issubclass(kind.attempt_model, AttemptRow)
    for common in WorkRow._meta.fields:
        if common.name == "id" and kind.work_model._meta.pk.name != "id":
            continue  # a run's key is its request's
        field = kind.work_model._meta.get_field(common.name)
        assert _column(field) == _column(common), (kind.name, common.name)
    state = kind.work_model._meta.get_field("state")
    assert {"pending", "sending"} <= {value for value, _ in state.choices}
    names = {index.name for index in kind.work_model._meta.indexes}
    table = kind.work_model._meta.db_table
    assert {f"{table}_due", f"{table}_lease"} <= names
    common_attempt = CallAttemptRow if issubclass(kind.attempt_model, CallAttemptRow) \
        else AttemptRow
    for common in common_attempt._meta.fields:
        field = kind.attempt_model._meta.get_field(common.name)
        assert _column(field) == _column(common), (kind.name, common.name)


def test_every_outbox_task_has_the_one_set_of_options():
    celery_app.loader.import_default_modules()
    names = {"outbox.sweep"} | {kind.send_task for kind in kinds()} | {
        kind.batch_task for kind in kinds() if kind.batch_task}
    for name in names:
        task = celery_app.tasks[name]
        assert {option: getattr(task, option) for option in TASK_OPTIONS} == TASK_OPTIONS


def test_beat_sends_one_sweep_and_no_kind_has_a_sweep_of_its_own():
    sweeps = {name: entry["task"] for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
              if "sweep" in name or "sweep" in entry["task"]}
    assert sweeps == {"outbox-sweep": "outbox.sweep"}
    entry = settings.CELERY_BEAT_SCHEDULE["outbox-sweep"]
    assert entry["schedule"] == float(settings.OUTBOX_SWEEP_INTERVAL_SECONDS) == 60.0
    celery_app.loader.import_default_modules()
    assert [name for name in celery_app.tasks if name.endswith("sweep")] == ["outbox.sweep"]


def _interval(**env) -> str:
    environment = {**os.environ, "SECRET_KEY": "test-only-secret-key-at-least-32-bytes-long",
                   **env}
    for name in ("OUTBOX_SWEEP_INTERVAL_SECONDS", "DELIVERY_SWEEP_INTERVAL_SECONDS"):
        if name not in env:
            environment.pop(name, None)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from django.conf import settings as s; "
         "print(s.CELERY_BEAT_SCHEDULE['outbox-sweep']['schedule'], "
         "s.DELIVERY_SWEEP_INTERVAL_SECONDS)"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_the_sweep_interval_reads_its_old_name_when_the_new_one_is_not_set():
    assert _interval(DELIVERY_SWEEP_INTERVAL_SECONDS="7") == "7.0 7"
    assert _interval(DELIVERY_SWEEP_INTERVAL_SECONDS="7", OUTBOX_SWEEP_INTERVAL_SECONDS="5") == \
        "5.0 5"


@pytest.mark.django_db
def test_one_kinds_trouble_does_not_keep_the_others_from_being_swept(app, monkeypatch, caplog):
    def broken(now):
        raise RuntimeError("upkeep broke")

    lost = Kind(name="lost messages", work_model=Claim, attempt_model=Attempt,
                attempt_of="claim", send_task="tests.outbox.kinds_try",
                timeout_setting="APPLE_ADS_TIMEOUT_SECONDS",
                grace_setting="APPLE_ADS_SWEEP_GRACE_SECONDS", exhausted=lambda row, now: None)
    failing = Kind(name="failing", work_model=RequestRun, attempt_model=RequestRunAttempt,
                   attempt_of="run", send_task="tests.outbox.kinds_try",
                   timeout_setting="PRIVACY_RUN_TIMEOUT_SECONDS",
                   grace_setting="PRIVACY_SWEEP_GRACE_SECONDS", exhausted=lambda row, now: None,
                   upkeep=broken)
    monkeypatch.setattr(sweep, "kinds", lambda: (failing, lost))
    previous, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, True
    SENT.clear()
    try:
        long_ago = timezone.now() - timedelta(hours=1)
        claim = Claim.objects.create(app=app, install_id=uuid.uuid4(), state="pending",
                                     next_attempt_at=long_ago, updated_at=long_ago)
        sent = sweep.kinds_sweep(now=timezone.now())
    finally:
        celery_app.conf.task_always_eager = previous
    assert sent == {"lost messages": [str(claim.id)]} and SENT == [str(claim.id)]
    assert "the failing sweep failed" in caplog.text
