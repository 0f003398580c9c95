"""Query parameters of the analytics endpoints: what is accepted, and every 400."""

import pytest

pytestmark = pytest.mark.django_db

ENDPOINTS = ("dashboard", "sources", "campaigns", "retention", "revenue", "attribution",
             "export", "cost")


def params(app, **overrides):
    values = {"app_id": str(app.id), "start_date": "2025-03-01", "end_date": "2025-03-31",
              "type": "installs"}
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def assert_invalid(response, field, message=None):
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == "VALIDATION_ERROR"
    assert field in body["error"]["details"], body
    if message is not None:
        assert body["error"]["details"][field] == [message]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("overrides,field,message", [
    ({"app_id": None}, "app_id", "This parameter is required."),
    ({"app_id": "not-a-uuid"}, "app_id", "Must be a UUID."),
    ({"start_date": None}, "start_date", "This parameter is required."),
    ({"end_date": None}, "end_date", "This parameter is required."),
    ({"start_date": "yesterday"}, "start_date", None),
    ({"start_date": "2025-02-30"}, "start_date", None),
    ({"end_date": "2025-03-31T25:00:00Z"}, "end_date", None),
    ({"end_date": ""}, "end_date", None),
    ({"start_date": "1999-12-31"}, "start_date", "Must be between 2000-01-01 and 2099-12-31."),
    ({"end_date": "9999-12-31T23:00:00-05:00"}, "end_date",
     "Must be between 2000-01-01 and 2099-12-31."),
    ({"start_date": "2025-03-31", "end_date": "2025-03-01"}, "end_date",
     "Must not be before start_date."),
    ({"start_date": "2024-01-01", "end_date": "2025-01-01"}, "end_date",
     "The range may cover at most 366 days (start and end included)."),
])
def test_bad_range_is_a_validation_error(owner_api, app, endpoint, overrides, field, message):
    response = owner_api.get(f"/api/v1/analytics/{endpoint}", params(app, **overrides))
    assert_invalid(response, field, message)


def test_366_days_is_the_longest_range(owner_api, app):
    response = owner_api.get("/api/v1/analytics/dashboard",
                             params(app, start_date="2024-01-01", end_date="2024-12-31"))
    assert response.status_code == 200
    assert len(response.json()["data"]["timeSeries"]) == 366


def test_all_errors_are_reported_together(owner_api):
    response = owner_api.get("/api/v1/analytics/dashboard", {"start_date": "x"})
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"app_id", "start_date", "end_date"}


@pytest.mark.parametrize("start,end,expected_start,expected_end", [
    ("2025-03-01", "2025-03-03", "2025-03-01", "2025-03-03"),
    ("2025-03-01T00:00:00Z", "2025-03-03T23:59:59Z", "2025-03-01", "2025-03-03"),
    ("2025-03-01T10:30:00", "2025-03-03T08:00:00.123", "2025-03-01", "2025-03-03"),
    # Offsets are converted to UTC first: 01:00+02:00 is 23:00 UTC the day before.
    ("2025-03-02T01:00:00+02:00", "2025-03-03T22:00:00-05:00", "2025-03-01", "2025-03-04"),
])
def test_dates_and_datetimes_become_utc_days_with_the_end_included(
        owner_api, app, start, end, expected_start, expected_end):
    response = owner_api.get("/api/v1/analytics/dashboard",
                             params(app, start_date=start, end_date=end))
    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["start_date"], data["end_date"]) == (expected_start, expected_end)
    assert data["timeSeries"][0]["date"] == expected_start
    assert data["timeSeries"][-1]["date"] == expected_end


@pytest.mark.parametrize("model", ["last_touch", "u-shaped", "LINEAR", "linear "])
def test_unknown_attribution_model_is_a_validation_error(owner_api, app, model):
    response = owner_api.get("/api/v1/analytics/attribution", params(app, model=model))
    assert_invalid(response, "model",
                   "Must be one of last-touch, first-touch, linear, time-decay.")


@pytest.mark.parametrize("kind,message", [
    (None, "This parameter is required."),
    ("clicks", "Must be one of installs, events, revenue, blocked_installs."),
    ("", "Must be one of installs, events, revenue, blocked_installs."),
])
def test_export_needs_a_known_type_and_answers_errors_in_the_envelope(owner_api, app, kind,
                                                                      message):
    response = owner_api.get("/api/v1/analytics/export", params(app, type=kind),
                             HTTP_ACCEPT="text/csv")
    assert_invalid(response, "type", message)


def test_unknown_app_is_not_found(owner_api, app):
    response = owner_api.get("/api/v1/analytics/dashboard",
                             params(app, app_id="00000000-0000-4000-8000-000000000000"))
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "NOT_FOUND", "message": "App not found.",
                                        "details": {}}


def test_an_empty_model_means_the_default(owner_api, app):
    response = owner_api.get("/api/v1/analytics/attribution", params(app, model=""))
    assert response.status_code == 200
    assert response.json()["data"]["model"] == "last-touch"


def test_only_get_is_allowed(owner_api, app):
    response = owner_api.post("/api/v1/analytics/dashboard", params(app), format="json")
    assert response.status_code == 405
    assert response.json()["success"] is False
