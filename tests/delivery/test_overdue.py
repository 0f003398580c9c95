"""Overdue deliveries are visible: /readyz counts them (a warning, not a failure), beat and the
sweep log a WARNING, and `manage.py delivery_health` exits 1. "Overdue" is pending more than
the sweep's grace plus one sweep interval past due (180 s by default), or claimed by a worker
whose lease ran out that long ago.
"""

import logging
import uuid
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from delivery import selectors, watch
from delivery.enqueue import DELIVERIES
from delivery.models import Delivery, Kind, State
from outbox.sweep import work_sweep
from outbox.tasks import outbox_sweep
from tests.delivery.helpers import purge_delivery_queue, wait_until

LATE = 180  # DELIVERY_SWEEP_GRACE_SECONDS (120) + DELIVERY_SWEEP_INTERVAL_SECONDS (60)


def delivery_due(app, *, ago: timedelta, state: str = State.PENDING, **fields) -> Delivery:
    """A delivery as it stands when it fell due `ago`: created (or last retried) then."""
    due = timezone.now() - ago
    values = dict(app=app, kind=Kind.WEBHOOK, event_type="install", source_id=str(uuid.uuid4()),
                  body="{}", max_attempts=4, state=state, next_attempt_at=due, created_at=due,
                  updated_at=due)
    values.update(fields)
    return Delivery.objects.create(**values)


@pytest.mark.django_db
def test_readyz_is_ok_when_nothing_is_late(client, app):
    delivery_due(app, ago=timedelta(seconds=5))  # waiting for its worker, as normal
    delivery_due(app, ago=timedelta(seconds=LATE - 5))  # late, but the sweep may still help
    delivery_due(app, ago=timedelta(days=1), state=State.SUCCEEDED, next_attempt_at=None)
    delivery_due(app, ago=timedelta(days=1), state=State.FAILED, next_attempt_at=None)
    response = client.get("/readyz")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "ready" and data["checks"]["deliveries"] == "ok"
    assert data["deliveries"] == {"overdue": 0, "overdue_capped": False,
                                  "oldest_overdue_seconds": None, "late_after_seconds": LATE}


@pytest.mark.django_db
def test_readyz_reports_overdue_deliveries_as_a_warning_and_stays_ready(client, app):
    delivery_due(app, ago=timedelta(minutes=10))
    delivery_due(app, ago=timedelta(minutes=4))
    # Claimed by a worker that died ten minutes ago, and no sweep has taken it back since.
    delivery_due(app, ago=timedelta(minutes=11), state=State.SENDING, next_attempt_at=None,
                 lease_expires_at=timezone.now() - timedelta(minutes=10))
    delivery_due(app, ago=timedelta(seconds=5))
    response = client.get("/readyz")
    assert response.status_code == 200  # the web process can still serve
    data = response.json()["data"]
    assert data["status"] == "ready" and data["checks"]["deliveries"] == "warning"
    assert data["deliveries"]["overdue"] == 3
    assert 600 <= data["deliveries"]["oldest_overdue_seconds"] < 630
    assert data["deliveries"]["overdue_capped"] is False


@pytest.mark.django_db
def test_the_overdue_count_stops_at_its_cap(client, app, monkeypatch):
    monkeypatch.setattr(selectors, "OVERDUE_COUNT_CAP", 3)
    for minutes in range(5, 10):
        delivery_due(app, ago=timedelta(minutes=minutes))
    deliveries = client.get("/readyz").json()["data"]["deliveries"]
    assert deliveries["overdue"] == 3 and deliveries["overdue_capped"] is True
    assert 540 <= deliveries["oldest_overdue_seconds"] < 570  # the oldest of them all


@pytest.mark.django_db
def test_the_threshold_follows_the_sweep_settings(client, app, settings):
    settings.DELIVERY_SWEEP_GRACE_SECONDS = 10
    settings.DELIVERY_SWEEP_INTERVAL_SECONDS = 5
    delivery_due(app, ago=timedelta(seconds=20))
    deliveries = client.get("/readyz").json()["data"]["deliveries"]
    assert deliveries["late_after_seconds"] == 15 and deliveries["overdue"] == 1


@pytest.mark.django_db
def test_overdue_deliveries_are_a_logged_warning_that_names_the_queue(app, caplog):
    with caplog.at_level(logging.WARNING, logger="delivery.watch"):
        watch.warn_if_overdue()
    assert caplog.records == []
    delivery_due(app, ago=timedelta(minutes=10))
    delivery_due(app, ago=timedelta(minutes=5))
    with caplog.at_level(logging.WARNING, logger="delivery.watch"):
        overdue = watch.warn_if_overdue()
    assert overdue.count == 2
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        f"Overdue deliveries: 2 more than {LATE} s past due, the oldest by 60")
    assert "'delivery' queue" in record.getMessage()
    assert "celery -A attribution_site worker" in record.getMessage()


@pytest.mark.django_db
def test_delivery_health_exits_0_when_nothing_is_late(app, capsys, monkeypatch):
    from attribution_site.celery import app as celery_app

    # The embedded default (no broker to ask); with one, see test_plain_worker.py.
    monkeypatch.setitem(celery_app.conf, "task_always_eager", True)
    delivery_due(app, ago=timedelta(seconds=5))
    call_command("delivery_health")
    out = capsys.readouterr().out
    assert f"overdue deliveries: none more than {LATE} s past due" in out
    assert out.rstrip().endswith("ok")


@pytest.mark.django_db
def test_delivery_health_exits_1_when_deliveries_are_overdue(app, capsys):
    delivery_due(app, ago=timedelta(minutes=10))
    with pytest.raises(CommandError, match="deliveries are overdue"):
        call_command("delivery_health", "--timeout", "0.5")
    out = capsys.readouterr().out
    assert f"overdue deliveries: 1 more than {LATE} s past due, the oldest by 60" in out


@pytest.mark.redis
@pytest.mark.django_db
def test_delivery_health_exits_1_when_no_worker_consumes_the_delivery_queue(app, capsys):
    purge_delivery_queue()
    with pytest.raises(CommandError, match="no worker consumes the 'delivery' queue"):
        call_command("delivery_health", "--timeout", "0.5")
    out = capsys.readouterr().out
    assert "queue delivery: 0 messages waiting, consumed by no worker" in out


@pytest.mark.redis
@pytest.mark.django_db
def test_a_delivery_nobody_sends_is_re_enqueued_once_per_grace_period_and_stays_overdue(
        app, client, caplog):
    """With a broker and no worker on the delivery queue: the sweep's messages go nowhere, and
    the delivery must not look any less late for having been re-enqueued."""
    purge_delivery_queue()
    try:
        lost = delivery_due(app, ago=timedelta(minutes=10))
        due = lost.next_attempt_at
        now = timezone.now()
        assert work_sweep(DELIVERIES, now=now, grace_seconds=120) == [str(lost.id)]
        assert work_sweep(DELIVERIES, now=now, grace_seconds=120) == []
        later = now + timedelta(seconds=121)
        assert work_sweep(DELIVERIES, now=later, grace_seconds=120) == [str(lost.id)]
        lost.refresh_from_db()
        assert lost.state == State.PENDING and lost.next_attempt_at == due
        assert client.get("/readyz").json()["data"]["deliveries"]["overdue"] == 1
        # The sweep task itself warns, in the log of whichever worker runs it.
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="delivery.watch"):
            outbox_sweep()
        [record] = [r for r in caplog.records if r.name == "delivery.watch"]
        assert record.getMessage().startswith(f"Overdue deliveries: 1 more than {LATE} s")
    finally:
        purge_delivery_queue()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_beat_as_the_readme_starts_it_warns_while_deliveries_are_overdue(app, readme_process):
    """No worker at all: beat is the one process left to say so."""
    beat = readme_process("beat", ready="beat: Starting", DELIVERY_SWEEP_INTERVAL_SECONDS="1")
    wait_until(lambda: beat.output().count("Sending due task outbox-sweep") >= 2, timeout=15)
    delivery_due(app, ago=timedelta(seconds=30))  # late, not yet overdue
    wait_until(lambda: beat.output().count("Sending due task outbox-sweep") >= 4, timeout=15)
    assert "Overdue deliveries" not in beat.output()
    delivery_due(app, ago=timedelta(minutes=10))
    # The threshold is the worker's grace (120 s) plus beat's interval, here 1 s.
    beat.wait_for_output("WARNING/MainProcess] Overdue deliveries: 1 more than 121 s past due, "
                         "the oldest by 60", timeout=15)
    assert "Is a worker consuming the 'delivery' queue?" in beat.output()
