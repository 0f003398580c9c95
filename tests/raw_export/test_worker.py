"""The worker exactly as the README starts it (no queue options), in a process of its own on
this test's database and the real Redis broker: "Run now" on the API reaches it through the
raw_export queue, and the files land in the directory."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from raw_export.models import Run
from tests.analytics.helpers import install
from tests.delivery.helpers import readme_process, wait_until  # noqa: F401 - fixture
from tests.raw_export.helpers import create, directory_body

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_plain_worker_runs_the_export(owner_api, app, readme_process, export_root):  # noqa: F811
    install(app, timezone.now() - timedelta(hours=3), "device-1")
    readme_process("worker", ready=" ready.", RAW_EXPORT_DIRECTORY_ROOT=str(export_root))
    destination = create(owner_api, directory_body())
    response = owner_api.post(f"/api/v1/data-destinations/{destination['id']}/runs")
    assert response.status_code == 202, response.content
    wait_until(lambda: Run.objects.get().state == "succeeded", timeout=60)
    run = Run.objects.get()
    assert run.topics["installs"]["rows"] == 1
    parts = list((export_root / "daily").rglob("part-*.csv.gz"))
    assert len(parts) == 1
