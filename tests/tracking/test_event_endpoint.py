"""POST /api/v1/events: batches, per-event rejections, revenue, beacons, idempotent retries."""

import json
import time
from decimal import Decimal

import pytest

from attribution_site import domain_events
from tests.factories import AppFactory
from tests.tracking.helpers import install_body
from tracking.attribution import usable_device_id
from tracking.event_batch import MAX_EVENTS_PER_BATCH
from tracking.models import Event, Install

pytestmark = pytest.mark.django_db
SESSION = "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"


def event(**overrides):
    values = {"event_name": "level_up", "properties": {"level": 2},
              "timestamp": int(time.time() * 1000), "session_id": SESSION}
    values.update(overrides)
    return values


def batch(app, events, **overrides):
    body = {"app_id": str(app.id), "sdk_version": "2.4.0", "device_id": "gaid-1",
            "events": events}
    body.update(overrides)
    return body


def test_a_batch_is_stored_and_counted(sdk, app):
    response = sdk.post("/api/v1/events", batch(app, [event(), event(event_name="open")]),
                        format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {"accepted": 2, "rejected": [], "warnings": []}
    assert sorted(Event.objects.values_list("event_name", flat=True)) == ["level_up", "open"]


def test_bad_events_do_not_sink_the_batch(sdk, app):
    response = sdk.post("/api/v1/events", batch(app, [event(), {"event_name": "x"},
                                                       event(session_id="nope")]),
                        format="json")
    data = response.json()["data"]
    assert response.status_code == 200
    assert data["accepted"] == 1
    assert [r["index"] for r in data["rejected"]] == [1, 2]
    assert "session_id" in data["rejected"][1]["errors"]
    assert Event.objects.count() == 1


def test_revenue_events_store_amount_and_currency(sdk, app):
    sdk.post("/api/v1/events", batch(app, [
        event(event_name="purchase", properties={"amount": 4.99, "currency": "eur"}),
        event(event_name="refund", properties={"amount": -4.99, "currency": "EUR"})]),
        format="json")
    rows = dict(Event.objects.values_list("event_name", "revenue_amount"))
    assert rows == {"purchase": Decimal("4.99"), "refund": Decimal("-4.99")}
    assert set(Event.objects.values_list("revenue_currency", flat=True)) == {"EUR"}


def test_revenue_in_a_currency_that_does_not_exist_is_kept_as_a_plain_event_with_a_warning(
        sdk, app):
    response = sdk.post("/api/v1/events", batch(app, [
        event(event_name="purchase", properties={"amount": 4.99, "currency": "XYZ"})]),
        format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {"accepted": 1, "rejected": [], "warnings": [
        {"index": 0, "message":
         "properties.currency is not an ISO 4217 code; stored as a plain event."}]}
    assert list(Event.objects.values_list("event_name", "revenue_amount", "revenue_currency")
                ) == [("purchase", None, None)]


def test_events_link_to_the_install_of_their_device(sdk, app):
    install_id = sdk.post("/api/v1/installs", install_body(app, device_id="GAID-1"),
                          format="json").json()["data"]["installId"]
    sdk.post("/api/v1/events", batch(app, [event()]), format="json")
    assert str(Event.objects.get().install_id) == install_id


def test_retried_event_ids_are_stored_once(sdk, app):
    body = batch(app, [event(event_id="e-1"), event(event_id="e-2"), event(event_id="e-1")])
    first = sdk.post("/api/v1/events", body, format="json").json()["data"]
    retry = sdk.post("/api/v1/events", body, format="json").json()["data"]
    assert first["accepted"] == 3 and retry["accepted"] == 3
    assert Event.objects.count() == 2


def test_beacons_send_the_key_in_a_text_plain_body(api, sdk_key, app):
    body = batch(app, [event()], _api_key=sdk_key)
    response = api.post("/api/v1/events", data=json.dumps(body),
                        content_type="text/plain;charset=UTF-8")
    assert response.status_code == 200
    assert response.json()["data"]["accepted"] == 1


def test_a_body_key_is_not_accepted_on_installs(api, sdk_key, app):
    response = api.post("/api/v1/installs", {**install_body(app), "_api_key": sdk_key},
                        format="json")
    assert response.status_code == 401


@pytest.mark.parametrize("body_change,field", [
    ({"events": "nope"}, "events"),
    ({"events": []}, "events"),
    ({"events": [{}] * (MAX_EVENTS_PER_BATCH + 1)}, "events"),
    ({"sdk_version": 3}, "sdk_version"),
    ({"app_id": "x"}, "app_id"),
])
def test_request_level_problems_are_a_400(sdk, app, body_change, field):
    response = sdk.post("/api/v1/events", {**batch(app, [event()]), **body_change},
                        format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert Event.objects.count() == 0


def test_missing_events_array_is_a_400(sdk, app):
    body = batch(app, [])
    del body["events"]
    assert sdk.post("/api/v1/events", body, format="json").status_code == 400


def test_events_for_another_app_are_forbidden(sdk, app):
    other = AppFactory(organization=app.organization)
    assert sdk.post("/api/v1/events", batch(other, [event()]),
                    format="json").status_code == 403


def test_events_without_a_key_are_unauthorized(api, app):
    assert api.post("/api/v1/events", batch(app, [event()]), format="json").status_code == 401


def test_each_stored_event_is_published_after_commit(sdk, app,
                                                     django_capture_on_commit_callbacks):
    seen = []

    def observe(events, write_batch):
        write_batch.after_commit(lambda: seen.extend(events))

    domain_events.subscribe(domain_events.EventTracked, observe)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            sdk.post("/api/v1/events", batch(app, [
                event(), event(event_name="purchase",
                               properties={"amount": 1, "currency": "USD"})]), format="json")
    finally:
        domain_events.unsubscribe(domain_events.EventTracked, observe)
    assert [e.event_name for e in seen] == ["level_up", "purchase"]
    assert seen[1].revenue_amount == Decimal("1") and seen[1].revenue_currency == "USD"
    assert {e.event_id for e in seen} == set(Event.objects.values_list("id", flat=True))


def test_deleting_the_app_deletes_its_installs_and_events(sdk, app, owner_api):
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")
    sdk.post("/api/v1/events", batch(app, [event()]), format="json")
    assert owner_api.delete(f"/api/v1/apps/{app.id}").status_code == 200
    assert Install.objects.count() == 0 and Event.objects.count() == 0


def test_an_event_with_a_nul_character_is_rejected_and_the_rest_stored(sdk, app):
    response = sdk.post("/api/v1/events", batch(app, [event(properties={"n": "a\u0000"}),
                                                       event()]), format="json")
    assert response.status_code == 200
    assert response.json()["data"]["accepted"] == 1
    assert Event.objects.count() == 1


def test_an_unsupported_content_type_is_a_validation_error(sdk, app):
    response = sdk.post("/api/v1/events", data="<events/>", content_type="application/xml")
    assert response.status_code == 400
    assert "content_type" in response.json()["error"]["details"]


def test_malformed_beacon_json_is_a_validation_error(api, app):
    response = api.post("/api/v1/events", data="{nope", content_type="text/plain")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"body": response.json()["error"][
        "details"]["body"]}


def test_text_that_copy_must_escape_is_stored_exactly(sdk, app):
    """PostgreSQL writes a batch as COPY's text format (tracking/sql.py): its separators and
    escapes inside names, ids and properties must come back as sent."""
    awkward = "tab\there, line\nbreak, return\r, back\\slash, \\N, \\., é ✓"
    response = sdk.post("/api/v1/events", batch(app, [
        event(event_name=awkward, event_id=awkward, properties={awkward: awkward, "n": None}),
        event(event_name="purchase", properties={"amount": "-0.5", "currency": "eur"})],
        device_id=awkward), format="json")
    assert response.status_code == 200 and response.json()["data"]["accepted"] == 2
    stored = Event.objects.get(event_id=awkward)
    assert (stored.event_name, stored.device_id) == (awkward, usable_device_id(awkward))
    assert stored.properties == {awkward: awkward, "n": None}
    assert (stored.revenue_amount, stored.revenue_currency, stored.install_id) == (
        None, None, None)
    refund = Event.objects.get(event_name="purchase")
    assert (refund.revenue_amount, refund.revenue_currency) == (Decimal("-0.5"), "EUR")
    assert refund.occurred_at == stored.occurred_at


def test_an_event_with_a_lone_surrogate_is_rejected_and_the_rest_stored(sdk, app):
    raw = json.dumps(batch(app, [event(event_name="bad"), event(event_name="open")]))
    response = sdk.post("/api/v1/events", raw.replace('"bad"', '"bad\\ud800"'),
                        content_type="application/json")
    assert response.status_code == 200
    assert response.json()["data"]["accepted"] == 1
    assert response.json()["data"]["rejected"] == [{"index": 0, "errors": {
        "event_name": ["Surrogate characters are not allowed: U+D800."]}}]
    assert list(Event.objects.values_list("event_name", flat=True)) == ["open"]
