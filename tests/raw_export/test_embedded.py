"""`make run`'s shape (no broker, tasks in-process): "Run now" writes the files before the
request answers, and `manage.py raw_export_run` runs every destination the same way."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from attribution_site.celery import app as celery_app
from raw_export.models import Run
from tests.analytics.helpers import install
from tests.raw_export.helpers import create, directory_body

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_process(monkeypatch):
    monkeypatch.setitem(celery_app.conf, "task_always_eager", True)


def test_run_now_writes_the_files_in_process(owner_api, app, export_root,
                                             django_capture_on_commit_callbacks):
    install(app, timezone.now() - timedelta(hours=3), "device-1")
    destination = create(owner_api, directory_body(format="parquet"))
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.post(f"/api/v1/data-destinations/{destination['id']}/runs")
    assert response.status_code == 202
    assert Run.objects.get().state == "succeeded"
    assert len(list((export_root / "daily").rglob("part-*.parquet"))) == 1


def test_the_command_runs_every_destination(owner_api, app, export_root, capsys,
                                            django_capture_on_commit_callbacks):
    install(app, timezone.now() - timedelta(hours=3), "device-1")
    create(owner_api, directory_body(name="one", path="one"))
    create(owner_api, directory_body(name="two", path="two"))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("raw_export_run")
    assert "Started 2 run(s)" in capsys.readouterr().out
    assert sorted(run.state for run in Run.objects.all()) == ["succeeded", "succeeded"]
    for name in ("one", "two"):
        assert len(list((export_root / name).rglob("part-*.csv.gz"))) == 1
