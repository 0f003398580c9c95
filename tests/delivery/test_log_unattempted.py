"""Deliveries not yet attempted are in the delivery logs (docs/delivery.md, "Deliveries not yet
attempted"): 400 deliveries waiting for a worker must not look like an empty log. Such an entry
is shaped like an attempt's, its attempt fields null, placed by when it was queued."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from delivery.models import Delivery, DeliveryAttempt, Kind, State
from tests.delivery.helpers import make_postback
from tests.delivery.test_log_paging import logged, pages

pytestmark = pytest.mark.django_db

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
ATTEMPT_FIELDS = ("id", "attempt_number", "http_method", "resolved_url", "status_code",
                  "response_body", "error_message", "success", "duration_ms", "started_at",
                  "finished_at")


def queued(app, postback, *, at: datetime, state: str = State.PENDING) -> Delivery:
    """A delivery of `postback` made `at` that no worker has tried."""
    return Delivery.objects.create(
        app=app, kind=Kind.POSTBACK, postback=postback, event_type="install",
        source_id=str(uuid.uuid4()), body="{}", max_attempts=4, state=state,
        next_attempt_at=at if state == State.PENDING else None, created_at=at, updated_at=at)


@pytest.fixture
def postback(app):
    return make_postback(app, "https://network.example/pb?d={device_id}")


def test_deliveries_waiting_for_a_worker_are_pending_entries(owner_api, app, postback):
    waiting = [queued(app, postback, at=T0 + timedelta(seconds=i)) for i in range(3)]
    response = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&state=pending")
    assert response.status_code == 200
    logs = response.json()["data"]["logs"]
    assert [entry["delivery_id"] for entry in logs] == [str(d.id) for d in reversed(waiting)]
    entry = logs[0]
    assert all(entry[field] is None for field in ATTEMPT_FIELDS)
    assert entry["queued_at"] == "2024-05-01T12:00:02Z"
    assert entry["delivery_state"] == "pending" and entry["next_attempt_at"] == entry["queued_at"]
    assert entry["postback_id"] == str(postback.id) and entry["event_type"] == "install"
    assert entry["is_test"] is False
    assert not DeliveryAttempt.objects.exists()  # reading the log tried nothing


def test_a_delivery_cancelled_before_its_first_attempt_is_an_entry_too(owner_api, app, postback):
    cancelled = queued(app, postback, at=T0, state=State.CANCELLED)
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert [(e["delivery_id"], e["delivery_state"]) for e in logs] == [
        (str(cancelled.id), "cancelled")]
    assert logs[0]["next_attempt_at"] is None


def test_an_attempted_delivery_is_listed_by_its_attempts_only(owner_api, app, postback):
    attempt = logged(app, postback, at=T0)
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert [(e["id"], e["attempt_number"]) for e in logs] == [(attempt.id, 1)]
    assert logs[0]["queued_at"] is not None


def test_paging_interleaves_waiting_deliveries_and_attempts_by_time_each_once(
        owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(seconds=i)) for i in range(4)]
    waiting = [queued(app, postback, at=T0 + timedelta(seconds=i, milliseconds=500))
               for i in range(3)]
    # Queued at the very moment an attempt started: the waiting delivery comes first.
    tie = queued(app, postback, at=T0 + timedelta(seconds=2))
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=3")
    seen = [entry["id"] or entry["delivery_id"] for page in walked for entry in page["logs"]]
    expected = [attempts[3].id, str(waiting[2].id), str(tie.id), attempts[2].id,
                str(waiting[1].id), attempts[1].id, str(waiting[0].id), attempts[0].id]
    assert seen == expected
    assert [len(page["logs"]) for page in walked] == [3, 3, 2]


def test_a_page_ending_on_a_waiting_delivery_goes_on_from_it(owner_api, app, postback):
    same = T0 + timedelta(seconds=5)
    waiting = sorted((queued(app, postback, at=same) for _ in range(3)),
                     key=lambda d: d.id, reverse=True)
    attempt = logged(app, postback, at=same)
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=1")
    seen = [entry["id"] or entry["delivery_id"] for page in walked for entry in page["logs"]]
    assert seen == [*(str(d.id) for d in waiting), attempt.id]


def test_since_and_until_place_a_waiting_delivery_by_when_it_was_queued(
        owner_api, app, postback):
    queued(app, postback, at=T0 - timedelta(minutes=1))
    inside = queued(app, postback, at=T0)
    queued(app, postback, at=T0 + timedelta(minutes=1))
    until = (T0 + timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&since=2024-05-01T12:00:00Z"
                         f"&until={until}").json()["data"]["logs"]
    assert [entry["delivery_id"] for entry in logs] == [str(inside.id)]


def test_another_configurations_waiting_deliveries_are_filtered_out(owner_api, app, postback):
    other = make_postback(app, "https://other.example/pb", media_source="network_b")
    queued(app, other, at=T0)
    mine = queued(app, postback, at=T0)
    logs = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&postback_id={postback.id}"
                         ).json()["data"]["logs"]
    assert [entry["delivery_id"] for entry in logs] == [str(mine.id)]
