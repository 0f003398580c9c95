"""The migrations that brought the kinds' rows to the outbox's common definition, applied on
PostgreSQL with rows in the tables: Apple Ads claims keep their attempt counts as the common
small integer (Google Ads claims did the same in google_ads' migrations, which networks/ has
since adopted: tests/networks/test_adoption.py), deliveries get the sweep's two indexes (built
concurrently), and every privacy request filed before gets its run, as the old worker left it.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = [("apple_ads", "0001_initial"),
          ("privacy", "0001_subject_requests_and_callbacks"),
          ("delivery", "0006_platform_kinds")]


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def _column_type(table: str, column: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT data_type FROM information_schema.columns "
                       "WHERE table_name = %s AND column_name = %s", [table, column])
        return cursor.fetchone()[0]


def _indexes(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {name for (name,) in cursor.fetchall()}


def test_the_kinds_migrate_forward_with_their_rows(app):
    executor = _executor()
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    old = _executor().loader.project_state(BEFORE).apps
    now = timezone.now()
    try:
        claim = old.get_model("apple_ads", "Claim").objects.create(
            app_id=app.id, install_id=uuid.uuid4(), state="not_found", attempts_made=8,
            completed_at=now)
        old.get_model("apple_ads", "Attempt").objects.create(claim=claim, number=8,
                                                             started_at=now)
        Request = old.get_model("privacy", "SubjectRequest")
        started = now - timedelta(minutes=10)
        requests = {status: Request.objects.create(
            app_id=app.id, request_type="erasure", status=status, identity_type="install_id",
            identity_hash="0" * 64, submitted_time=now, received_time=now - timedelta(hours=1),
            expected_completion_time=now + timedelta(hours=23), updated_at=started,
            started_at=started if status == "in_progress" else None,
            completed_at=now if status in ("completed", "cancelled") else None)
            for status in ("pending", "in_progress", "completed", "cancelled")}
    finally:
        _executor().migrate(leaves)

    from apple_ads.models import Attempt, Claim
    from privacy.models import RequestRun

    assert Claim.objects.get(id=claim.id).attempts_made == 8
    assert Attempt.objects.get().number == 8
    for table in ("apple_ads_claim", "google_ads_claim", "delivery_delivery",
                  "privacy_statuscallback", "raw_export_run"):
        assert _column_type(table, "attempts_made") == "smallint", table
        assert {f"{table}_due", f"{table}_lease"} <= _indexes(table), table
    assert "delivery_open_idx" not in _indexes("delivery_delivery")

    runs = {run.request_id: run for run in RequestRun.objects.all()}
    pending, in_progress = runs[requests["pending"].id], runs[requests["in_progress"].id]
    assert (pending.state, pending.next_attempt_at) == ("pending",
                                                        requests["pending"].received_time)
    # Due when the old worker's 30-minute lease ends: a worker still at it is not disturbed.
    assert (in_progress.state, in_progress.next_attempt_at) == (
        "pending", started + timedelta(minutes=30))
    assert (runs[requests["completed"].id].state, runs[requests["completed"].id].attempts_made
            ) == ("succeeded", 1)
    assert runs[requests["cancelled"].id].state == "cancelled"
