"""Client event ids stay idempotent across day partitions: a retry on another day, concurrent
retries, and an app's deletion (tracking.services.events_record, tracking.models.EventKey)."""

import threading
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from tracking import partitions, services
from tracking.event_batch import check_batch
from tracking.models import Event, EventKey

SESSION = "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"


def clean(*event_ids):
    now_ms = int(time.time() * 1000)
    return check_batch([{"event_name": "level_up", "properties": {}, "timestamp": now_ms,
                         "session_id": SESSION, **({"event_id": e} if e else {})}
                        for e in event_ids], now_ms=now_ms).events


def record(app, events, received_at):
    return services.events_record(app_id=app.id, device_id=None, events=events,
                                  received_at=received_at)


@pytest.mark.django_db
def test_a_retry_arriving_the_next_day_is_a_duplicate_stored_once(app):
    today = timezone.now()
    first = record(app, clean("e-1", "e-2", None), today)
    retry = record(app, clean("e-1", "e-2", None), today + timedelta(days=1))
    assert first == services.EventsOutcome(accepted=3, duplicates=0)
    assert retry == services.EventsOutcome(accepted=3, duplicates=2)
    # the events without an id are new each time; each id is stored once, on its first day
    assert sorted(Event.objects.values_list("event_id", flat=True), key=str) == [
        None, None, "e-1", "e-2"]
    assert set(EventKey.objects.values_list("event_id", flat=True)) == {"e-1", "e-2"}
    if connection.vendor == "postgresql":  # and the two days are two partitions
        with connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT tableoid::regclass::text FROM tracking_event")
            assert {name for (name,) in cursor.fetchall()} == {
                partitions.partition_name("tracking_event",
                                          partitions.Period(partitions.day_of(moment)))
                for moment in (today, today + timedelta(days=1))}


@pytest.mark.django_db
def test_the_endpoint_answers_a_retry_on_another_day_as_the_first_try(sdk, app, monkeypatch):
    from tracking import views

    body = {"app_id": str(app.id), "sdk_version": "2.4.0", "events": [
        {"event_name": "purchase", "properties": {"amount": 1, "currency": "USD"},
         "timestamp": int(time.time() * 1000), "session_id": SESSION, "event_id": "p-1"}]}
    first = sdk.post("/api/v1/events", body, format="json")
    tomorrow = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(views, "timezone", SimpleNamespace(now=lambda: tomorrow))
    retry = sdk.post("/api/v1/events", body, format="json")
    assert first.status_code == retry.status_code == 200
    assert first.json()["data"] == retry.json()["data"] == {
        "accepted": 1, "rejected": [], "warnings": []}
    assert Event.objects.count() == 1
    assert Event.objects.get().received_at < tomorrow


@pytest.mark.django_db
def test_keys_are_per_app(app):
    from tests.factories import AppFactory

    other = AppFactory(organization=app.organization)
    now = timezone.now()
    assert record(app, clean("e-1"), now).duplicates == 0
    assert record(other, clean("e-1"), now).duplicates == 0
    assert Event.objects.count() == 2


@pytest.mark.django_db
def test_deleting_the_app_deletes_its_event_keys(sdk, app, owner_api):
    from tests.factories import AppFactory

    other = AppFactory(organization=app.organization)
    record(app, clean("e-1", "e-2"), timezone.now())
    record(other, clean("e-1"), timezone.now())
    assert owner_api.delete(f"/api/v1/apps/{app.id}").status_code == 200
    assert list(EventKey.objects.values_list("app_id", "event_id")) == [(other.id, "e-1")]
    assert Event.objects.filter(app_id=app.id).count() == 0


def _lock_waiters() -> int:
    with connections["default"].cursor() as cursor:  # pg_locks is live, even in a transaction
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_retries_store_the_batch_once(app):
    """The second batch waits on the first's uncommitted keys, then finds them taken."""
    batch = clean("c-1", "c-2", "c-3")
    outcomes = {}

    def retry():
        try:
            outcomes["retry"] = record(app, batch, timezone.now() + timedelta(days=1))
        finally:
            connections.close_all()  # this thread's own connection

    with transaction.atomic():
        outcomes["first"] = record(app, batch, timezone.now())
        other = threading.Thread(target=retry)
        other.start()
        deadline = time.monotonic() + 10
        while _lock_waiters() == 0:  # the retry is blocked on our keys
            assert time.monotonic() < deadline, "the retry never waited for the first batch"
            time.sleep(0.02)
        assert "retry" not in outcomes
    other.join(timeout=10)
    assert outcomes["first"] == services.EventsOutcome(accepted=3, duplicates=0)
    assert outcomes["retry"] == services.EventsOutcome(accepted=3, duplicates=3)
    assert sorted(Event.objects.values_list("event_id", flat=True)) == ["c-1", "c-2", "c-3"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retry_waiting_on_a_batch_that_rolls_back_stores_the_events(app):
    batch = clean("r-1", "r-2")
    outcomes = {}

    def retry():
        try:
            outcomes["retry"] = record(app, batch, timezone.now())
        finally:
            connections.close_all()

    with pytest.raises(RuntimeError), transaction.atomic():
        record(app, batch, timezone.now())
        other = threading.Thread(target=retry)
        other.start()
        deadline = time.monotonic() + 10
        while _lock_waiters() == 0:
            assert time.monotonic() < deadline, "the retry never waited for the first batch"
            time.sleep(0.02)
        raise RuntimeError("the first batch fails after claiming its keys")
    other.join(timeout=10)
    assert outcomes["retry"] == services.EventsOutcome(accepted=2, duplicates=0)
    assert sorted(Event.objects.values_list("event_id", flat=True)) == ["r-1", "r-2"]
    assert EventKey.objects.filter(app_id=app.id).count() == 2

