"""How enforcement runs: beat's schedule and task, the operator's command, the lease that keeps
two runs apart, and /readyz, which warns (and stays 200) when enforcement falls behind."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from apps_registry.models import App
from retention import tasks
from retention.models import Enforcement, Progress
from retention.services import retention_enforce
from tests.retention.helpers import click_pair, days_ago, stored_click
from tracking.models import ClickArchive

pytestmark = pytest.mark.django_db

IP = "81.2.69.77"


def test_beat_runs_it_hourly_on_the_default_queue():
    entry = settings.CELERY_BEAT_SCHEDULE["retention.enforce"]
    assert entry["task"] == "retention.enforce" == tasks.enforce.name
    assert "queue" not in entry.get("options", {})
    assert not any(pattern in ("retention.*", "retention.enforce")
                   for pattern in settings.CELERY_TASK_ROUTES)


def test_the_task_enforces_on_the_wall_clock(app):
    old = click_pair(app, timezone.now() - timedelta(days=31), IP)
    tasks.enforce.apply()
    assert stored_click(ClickArchive, old)["ip"] == "81.2.69.0"
    state = Enforcement.objects.get()
    assert state.last_finished_at is not None and state.lease_until is None
    assert state.last_outcome["complete"] is True


def test_the_command_enforces_on_the_clock_it_is_given(app, now):
    old = click_pair(app, days_ago(now, 20), IP)
    out = StringIO()
    call_command("retention_enforce", "--now", days_ago(now, -11).isoformat(), stdout=out)
    assert stored_click(ClickArchive, old)["ip"] == "81.2.69.0"
    assert "masked 1 rows of click_archive" in out.getvalue()
    assert Enforcement.objects.get().last_now == days_ago(now, -11)


def test_the_command_refuses_a_time_it_cannot_read():
    with pytest.raises(CommandError, match="--now must be an ISO 8601 time"):
        call_command("retention_enforce", "--now", "yesterday")


def test_a_second_run_while_one_holds_the_lease_does_nothing(app, now):
    Enforcement.objects.create(id=1, lease_until=timezone.now() + timedelta(minutes=5))
    old = click_pair(app, days_ago(now, 31), IP)
    assert retention_enforce(now=now) is None
    assert stored_click(ClickArchive, old)["ip"] == IP
    with pytest.raises(CommandError, match="another run is in progress"):
        call_command("retention_enforce")


def test_an_expired_lease_is_taken_over(app, now):
    Enforcement.objects.create(id=1, lease_until=timezone.now() - timedelta(seconds=1))
    assert retention_enforce(now=now) is not None


# --- /readyz ----------------------------------------------------------------------------------

def _readyz(client) -> tuple[str, dict]:
    response = client.get("/readyz")
    assert response.status_code == 200
    data = response.json()["data"]
    return data["checks"]["retention"], data["retention"]


def test_readyz_is_ok_after_a_run(client, app):
    click_pair(app, timezone.now() - timedelta(days=40), IP)
    retention_enforce(now=timezone.now())
    state, details = _readyz(client)
    assert state == "ok"
    assert details["apps_behind_on_ip"] == 0 and details["run_stale"] is False
    assert details["last_run_complete"] is True


def test_a_new_instance_is_not_behind(client, app):
    assert _readyz(client)[0] == "ok"


def test_readyz_warns_when_addresses_past_the_limit_may_still_be_there(client, app):
    App.objects.filter(id=app.id).update(created_at=timezone.now() - timedelta(days=90))
    retention_enforce(now=timezone.now() - timedelta(days=3))  # a run three days ago...
    Enforcement.objects.update(last_finished_at=timezone.now() - timedelta(days=3))

    state, details = _readyz(client)

    assert state == "warning"
    assert details["run_stale"] is True
    assert details["apps_behind_on_ip"] == 1 and details["apps_behind_listed"] == [str(app.id)]


def test_readyz_warns_about_an_app_whose_addresses_were_never_masked(client, app):
    App.objects.filter(id=app.id).update(created_at=timezone.now() - timedelta(days=90))
    retention_enforce(now=timezone.now())
    stuck = App.objects.create(organization=app.organization, name="Stuck", platform="web",
                               domain="stuck.example.com",
                               created_at=timezone.now() - timedelta(days=45))
    Progress.objects.filter(app=stuck).delete()

    state, details = _readyz(client)

    assert state == "warning" and details["run_stale"] is False
    assert details["apps_behind_listed"] == [str(stuck.id)]


@pytest.mark.postgres
def test_readyz_warns_when_a_day_partition_outlived_every_apps_raw_limit(client, app, now):
    from tracking import partition_sql

    app.raw_retention_days = 45
    app.save()
    click_pair(app, days_ago(now, 60), IP)
    partition_sql.partitions_ensure(now=now)
    Enforcement.objects.create(id=1, last_finished_at=timezone.now())
    Progress.objects.bulk_create(Progress(table=name, app=app, masked_through=timezone.now())
                                 for name in ("clicks", "click_archive", "installs"))

    state, details = _readyz(client)

    assert state == "warning" and details["raw_behind_tables"] == ["click_archive"]
    retention_enforce(now=timezone.now())
    assert _readyz(client)[0] == "ok"


def test_history_loaded_after_its_time_was_masked_waits_for_a_rescan(app, now):
    retention_enforce(now=now)
    loaded = click_pair(app, days_ago(now, 200), IP)  # a load of history, stamped long ago
    assert retention_enforce(now=now).masked["click_archive"] == 0
    out = StringIO()
    call_command("retention_enforce", "--now", now.isoformat(), "--rescan", stdout=out)
    assert stored_click(ClickArchive, loaded)["ip"] == "81.2.69.0"
    assert "masked 1 rows of click_archive" in out.getvalue()
