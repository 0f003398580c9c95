"""The delivery logs page through every entry with a cursor, newest first, and filter by time
range, delivery state and configuration; a bad cursor or filter is a 400 naming it."""

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from delivery.models import Delivery, DeliveryAttempt, Kind, State
from tests.delivery.helpers import make_postback, make_webhook

pytestmark = pytest.mark.django_db

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def logged(app, config, *, at: datetime, state: str = State.SUCCEEDED) -> DeliveryAttempt:
    """One delivery of `config` with one attempt that started `at`."""
    kind = Kind.POSTBACK if hasattr(config, "postback_url") else Kind.WEBHOOK
    delivery = Delivery.objects.create(
        app=app, kind=kind, postback=config if kind == Kind.POSTBACK else None,
        webhook=config if kind == Kind.WEBHOOK else None, event_type="install",
        source_id=str(uuid.uuid4()), body="{}", max_attempts=4, state=state, attempts_made=1)
    return DeliveryAttempt.objects.create(
        delivery=delivery, app=app, kind=kind, number=1, http_method="GET",
        url="https://network.example/pb", status_code=200, succeeded=True, started_at=at,
        finished_at=at + timedelta(milliseconds=30))


def newest_first(attempts) -> list[int]:
    return [a.id for a in sorted(attempts, key=lambda a: (a.started_at, a.id), reverse=True)]


def pages(owner_api, url: str) -> list[dict]:
    """Every page from `url` on, following next_cursor until it is null."""
    seen = []
    cursor = None
    while True:
        response = owner_api.get(url + (f"&cursor={cursor}" if cursor else ""))
        assert response.status_code == 200, response.content
        data = response.json()["data"]
        seen.append(data)
        cursor = data["next_cursor"]
        if cursor is None:
            return seen
        assert len(seen) < 100, "the cursor never ends"


@pytest.fixture
def postback(app):
    return make_postback(app, "https://network.example/pb", media_source="network_a")


def test_paging_reaches_every_entry_exactly_once_newest_first(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(seconds=i)) for i in range(5)]
    # Two entries started in the same microsecond: the id orders them.
    attempts += [logged(app, postback, at=T0 + timedelta(seconds=2)) for _ in range(2)]
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=3")
    assert [len(page["logs"]) for page in walked] == [3, 3, 1]
    ids = [entry["id"] for page in walked for entry in page["logs"]]
    assert ids == newest_first(attempts)
    assert walked[-1]["next_cursor"] is None


def test_a_last_page_that_is_exactly_full_has_no_cursor(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(seconds=i)) for i in range(4)]
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=2")
    assert [[entry["id"] for entry in page["logs"]] for page in walked] == [
        newest_first(attempts)[:2], newest_first(attempts)[2:]]


def test_one_page_when_everything_fits(owner_api, app, postback):
    logged(app, postback, at=T0)
    data = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]
    assert len(data["logs"]) == 1 and data["next_cursor"] is None


def test_more_than_the_maximum_limit_is_reachable(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(milliseconds=i)) for i in range(501)]
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=500")
    assert [len(page["logs"]) for page in walked] == [500, 1]
    assert [e["id"] for page in walked for e in page["logs"]] == newest_first(attempts)


def test_entries_logged_while_paging_do_not_shift_the_pages(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(seconds=i)) for i in range(4)]
    base = f"/api/v1/postbacks/logs?app_id={app.id}&limit=2"
    first = owner_api.get(base).json()["data"]
    logged(app, postback, at=T0 + timedelta(minutes=5))  # newer: it belongs on a first page
    second = owner_api.get(f"{base}&cursor={first['next_cursor']}").json()["data"]
    assert [e["id"] for e in first["logs"] + second["logs"]] == newest_first(attempts)
    assert second["next_cursor"] is None


def test_since_is_inclusive_and_until_exclusive(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(hours=i)) for i in range(5)]
    url = (f"/api/v1/postbacks/logs?app_id={app.id}&since=2024-05-01T13:00:00Z"
           "&until=2024-05-01T15:00:00Z")
    logs = owner_api.get(url).json()["data"]["logs"]
    assert [e["id"] for e in logs] == [attempts[2].id, attempts[1].id]


def test_a_time_without_offset_is_utc_and_an_offset_is_honoured(owner_api, app, postback):
    attempts = [logged(app, postback, at=T0 + timedelta(hours=i)) for i in range(3)]
    naive = f"/api/v1/postbacks/logs?app_id={app.id}&since=2024-05-01T13:00:00"
    assert [e["id"] for e in owner_api.get(naive).json()["data"]["logs"]] == [
        attempts[2].id, attempts[1].id]
    offset = f"/api/v1/postbacks/logs?app_id={app.id}&until=2024-05-01T15:00:00%2B02:00"
    assert [e["id"] for e in owner_api.get(offset).json()["data"]["logs"]] == [attempts[0].id]


def test_the_state_filter_takes_one_or_several_delivery_states(owner_api, app, postback):
    failed = logged(app, postback, at=T0, state=State.FAILED)
    pending = logged(app, postback, at=T0 + timedelta(seconds=1), state=State.PENDING)
    logged(app, postback, at=T0 + timedelta(seconds=2), state=State.SUCCEEDED)
    base = f"/api/v1/postbacks/logs?app_id={app.id}"
    only_failed = owner_api.get(f"{base}&state=failed").json()["data"]["logs"]
    assert [(e["id"], e["delivery_state"]) for e in only_failed] == [(failed.id, "failed")]
    open_or_failed = owner_api.get(f"{base}&state=pending,failed").json()["data"]["logs"]
    assert [e["id"] for e in open_or_failed] == [pending.id, failed.id]
    repeated = owner_api.get(f"{base}&state=pending&state=failed").json()["data"]["logs"]
    assert [e["id"] for e in repeated] == [pending.id, failed.id]


def test_filters_hold_on_every_page(owner_api, app, postback):
    other = make_postback(app, "https://other.example/pb", media_source="network_b")
    mine = [logged(app, postback, at=T0 + timedelta(seconds=2 * i), state=State.FAILED)
            for i in range(5)]
    for i in range(5):
        logged(app, other, at=T0 + timedelta(seconds=2 * i + 1), state=State.FAILED)
        logged(app, postback, at=T0 + timedelta(seconds=2 * i + 1), state=State.SUCCEEDED)
    walked = pages(owner_api, f"/api/v1/postbacks/logs?app_id={app.id}&limit=2"
                              f"&postback_id={postback.id}&state=failed"
                              "&since=2024-05-01T12:00:01Z")
    ids = [e["id"] for page in walked for e in page["logs"]]
    assert ids == newest_first(mine[1:])
    assert {e["postback_id"] for page in walked for e in page["logs"]} == {str(postback.id)}


def test_webhook_logs_page_the_same_way(owner_api, app):
    webhook, _secret = make_webhook(app, "https://hooks.example.com/h")
    attempts = [logged(app, webhook, at=T0 + timedelta(seconds=i)) for i in range(3)]
    walked = pages(owner_api, f"/api/v1/webhooks/logs?app_id={app.id}&limit=2"
                              f"&webhook_id={webhook.id}")
    assert [e["id"] for page in walked for e in page["logs"]] == newest_first(attempts)
    assert walked[0]["logs"][0]["webhook_id"] == str(webhook.id)


def test_a_page_is_one_query_however_deep(owner_api, app, postback):
    for i in range(6):
        logged(app, postback, at=T0 + timedelta(seconds=i))
    base = f"/api/v1/postbacks/logs?app_id={app.id}&limit=2"
    cursor = owner_api.get(base).json()["data"]["next_cursor"]
    cursor = owner_api.get(f"{base}&cursor={cursor}").json()["data"]["next_cursor"]
    with CaptureQueriesContext(connection) as queries:
        owner_api.get(f"{base}&cursor={cursor}")
    log_reads = [q["sql"] for q in queries if "delivery_deliveryattempt" in q["sql"]]
    assert len(log_reads) == 1 and "LIMIT 3" in log_reads[0]


@pytest.mark.postgres
def test_the_cursor_bounds_the_index_scan(app, postback):
    """The position is an Index Cond on the log index: PostgreSQL starts reading at the
    cursor rather than reading every newer entry and filtering it away."""
    from delivery import selectors

    for i in range(3):
        logged(app, postback, at=T0 + timedelta(seconds=i))
    first = selectors.delivery_log(app_id=app.id, kind=Kind.POSTBACK, limit=1)
    with CaptureQueriesContext(connection) as queries:
        selectors.delivery_log(app_id=app.id, kind=Kind.POSTBACK, limit=1,
                               before=first.next_position)
    [sql] = [q["sql"] for q in queries if "delivery_deliveryattempt" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a three-row table is read whole
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "attempt_log_page_idx" in plan, plan
    index_cond = next(line for line in plan.splitlines() if "Index Cond" in line)
    assert "started_at <=" in index_cond, plan


def cursor_of(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize("query,field", [
    ("cursor=not-a-cursor", "cursor"),
    ("cursor=" + cursor_of(["2024-05-01T12:00:00", 5]), "cursor"),  # no offset: not ours
    ("cursor=" + cursor_of(["yesterday", 5]), "cursor"),
    ("cursor=" + cursor_of(["2024-05-01T12:00:00+00:00", "5"]), "cursor"),
    ("cursor=" + cursor_of(["2024-05-01T12:00:00+00:00", 0]), "cursor"),
    ("cursor=" + cursor_of({"t": 1}), "cursor"),
    ("cursor=" + cursor_of(5), "cursor"),
    ("since=yesterday", "since"),
    ("until=2024-13-01T00:00:00Z", "until"),
    ("since=2024-05-02T00:00:00Z&until=2024-05-01T00:00:00Z", "until"),
    ("since=2024-05-01T00:00:00Z&until=2024-05-01T00:00:00Z", "until"),
    ("state=done", "state"),
    ("state=failed,nope", "state"),
    ("state=", "state"),
    ("limit=501", "limit"),
])
def test_bad_paging_and_filters_are_400_with_the_envelope(owner_api, app, query, field):
    response = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == "VALIDATION_ERROR"
    assert list(body["error"]["details"]) == [field]
    assert body["error"]["message"] == f"Invalid input: {field}."


def test_every_bad_parameter_is_named_at_once(owner_api, app):
    response = owner_api.get(f"/api/v1/webhooks/logs?app_id={app.id}&limit=0&cursor=x"
                             "&since=soon&state=lost")
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"limit", "cursor", "since", "state"}
