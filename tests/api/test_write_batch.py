"""WriteBatch: rows of several tables written together, in one statement on PostgreSQL."""

import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from attribution_site.write_batch import WriteBatch
from delivery.models import Delivery
from tests.delivery.helpers import make_webhook
from tracking.models import Install

pytestmark = pytest.mark.django_db


def an_install(app, device_id="gaid-1"):
    return Install(app_id=app.id, device_id=device_id, platform="android", sdk_version="1.0",
                   match_type="organic", decision={"method": "organic"})


def a_delivery(app, webhook, source_id):
    now = timezone.now()
    return Delivery(id=uuid.uuid4(), app_id=app.id, kind="webhook", webhook=webhook,
                    event_type="install", source_id=source_id, body="{}", max_attempts=4,
                    next_attempt_at=now)


def written(batch) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        batch.execute()
    return [q["sql"] for q in queries if q["sql"].split()[0] not in ("SAVEPOINT", "RELEASE")]


def test_an_install_and_its_delivery_rows_are_written_together(app):
    webhook, _ = make_webhook(app, "https://hooks.example/h")
    install = an_install(app)
    batch = WriteBatch()
    batch.insert([install])
    batch.insert([a_delivery(app, webhook, str(install.id)),
                  a_delivery(app, webhook, "other")], ignore_conflicts=True)
    statements = written(batch)
    if connection.vendor == "postgresql":
        assert len(statements) == 1 and statements[0].startswith("WITH w0 AS (INSERT")
    stored = Install.objects.get()
    assert (stored.id, stored.device_id, stored.decision) == (install.id, "gaid-1",
                                                              {"method": "organic"})
    assert sorted(Delivery.objects.values_list("source_id", flat=True)) == sorted(
        [str(install.id), "other"])


def test_a_conflict_writes_none_of_the_batch(app):
    webhook, _ = make_webhook(app, "https://hooks.example/h")
    first = WriteBatch()
    first.insert([an_install(app)])
    first.execute()
    batch = WriteBatch()
    batch.insert([an_install(app)])  # the same device again: the unique constraint
    batch.insert([a_delivery(app, webhook, "x")], ignore_conflicts=True)
    with pytest.raises(IntegrityError):
        batch.execute()  # inside the test's transaction, which survives it
    assert Install.objects.count() == 1
    assert Delivery.objects.count() == 0


def test_ignored_conflicts_skip_only_the_duplicate_rows(app):
    webhook, _ = make_webhook(app, "https://hooks.example/h")
    first = WriteBatch()
    first.insert([a_delivery(app, webhook, "a")], ignore_conflicts=True)
    first.execute()
    again = WriteBatch()
    again.insert([a_delivery(app, webhook, "a"), a_delivery(app, webhook, "b")],
                 ignore_conflicts=True)
    again.execute()
    assert sorted(Delivery.objects.values_list("source_id", flat=True)) == ["a", "b"]


def test_callbacks_run_after_the_rows_are_written(app, django_capture_on_commit_callbacks):
    seen = []
    batch = WriteBatch()
    batch.insert([an_install(app)])
    batch.after_commit(lambda: seen.append(Install.objects.count()))
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            batch.execute()
            assert seen == []  # inside a transaction they wait for its commit
    assert seen == [1]


def test_an_empty_batch_touches_nothing(app):
    assert written(WriteBatch()) == []


@pytest.mark.parametrize("rows", [
    lambda app: [Install(app_id=app.id, platform="android", sdk_version="1", id=None)],
    lambda app: [an_install(app), Delivery(id=uuid.uuid4())],
])
def test_rows_without_keys_or_of_two_models_are_refused(app, rows):
    with pytest.raises(ValueError):
        WriteBatch().insert(rows(app))
