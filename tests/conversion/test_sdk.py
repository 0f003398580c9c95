"""The SDK side (API key, the rules of /events): the active schema in compact form, and the
value a device should set now, computed by the same function the report decodes with."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from analytics.models import CurrencyRate
from tests.conversion.samples import SCHEMA
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import one_rate_window  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db

VALUE_URL = "/api/v1/conversion-value"


@pytest.fixture
def sdk(sdk_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


@pytest.fixture
def schema(owner_api, app):
    assert owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", SCHEMA,
                          format="json").status_code == 201


def millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def ask(sdk, app, events, **extra):
    return sdk.post(VALUE_URL, {"app_id": str(app.id), "events": events, **extra},
                    format="json")


def purchase(amount, currency="USD", at=None):
    return {"event_name": "purchase", "revenue": amount, "currency": currency,
            "timestamp": millis(at or timezone.now())}


def test_the_sdk_reads_the_active_schema_in_compact_form(sdk, app, schema, owner_api):
    response = sdk.get(f"/api/v1/apps/{app.id}/conversion-schema")
    assert response.status_code == 200
    compact = response.json()["data"]["schema"]
    assert (compact["schema_version"], compact["currency"]) == (1, "USD")
    assert compact["w"][0]["lock"] is True
    assert compact["w"][0]["rules"][4] == {"coarse": "high", "fine": 63,
                                           "event_name": "purchase", "min_count": 1,
                                           "min_revenue": "20"}
    newer = copy.deepcopy(SCHEMA)
    newer["windows"][0]["lock_window"] = False
    owner_api.post(f"/api/v1/apps/{app.id}/conversion-schemas", newer, format="json")
    compact = sdk.get(f"/api/v1/apps/{app.id}/conversion-schema").json()["data"]["schema"]
    assert (compact["schema_version"], compact["w"][0]["lock"]) == (2, False)


def test_without_a_schema_both_sdk_endpoints_answer_404(sdk, app):
    assert sdk.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 404
    response = ask(sdk, app, [], window=0)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "This app has no conversion schema yet."


def test_the_value_for_a_window_comes_from_its_events(sdk, app, schema):
    response = ask(sdk, app, [purchase(3), purchase("2.5")], window=0)
    assert response.status_code == 200
    assert response.json()["data"] == {
        "fine": 40, "coarse": "high", "lock_window": False, "window": 0, "schema_version": 1,
        "events_counted": 2, "warnings": []}
    top = ask(sdk, app, [purchase(25)], window=0).json()["data"]
    assert (top["fine"], top["coarse"], top["lock_window"]) == (63, "high", True)
    later = ask(sdk, app, [purchase(12)], window=1).json()["data"]
    assert (later["fine"], later["coarse"]) == (None, "high")


def test_with_an_install_time_the_open_window_and_only_its_events_count(sdk, app, schema):
    installed = timezone.now() - timedelta(days=3)
    events = [purchase(30, at=installed + timedelta(hours=1)),  # window 0: not counted now
              purchase(4, at=installed + timedelta(days=2, hours=1))]
    data = ask(sdk, app, events, install_time=millis(installed)).json()["data"]
    assert (data["window"], data["coarse"], data["events_counted"]) == (1, "medium", 1)
    first = ask(sdk, app, events, install_time=millis(installed), window=0).json()["data"]
    assert (first["window"], first["fine"], first["events_counted"]) == (0, 63, 1)


def test_after_the_last_window_there_is_nothing_to_set(sdk, app, schema):
    installed = timezone.now() - timedelta(days=36)
    response = ask(sdk, app, [], install_time=millis(installed))
    assert response.status_code == 400
    assert "install_time" in response.json()["error"]["details"]


def test_revenue_converts_to_the_schemas_currency_and_a_missing_rate_warns(sdk, app, schema):
    CurrencyRate.objects.create(currency="EUR", day=date(2020, 1, 1),
                                units_per_usd=Decimal("0.5"))
    data = ask(sdk, app, [purchase(3, "EUR")], window=0).json()["data"]  # 6 USD
    assert (data["fine"], data["warnings"]) == (40, [])
    data = ask(sdk, app, [purchase(3, "JPY"), {"event_name": "tutorial_complete",
                                               "timestamp": millis(timezone.now())}],
               window=0).json()["data"]
    assert data["fine"] == 5
    assert data["warnings"] == ["No exchange rate from JPY to USD: that revenue was left out."]


@pytest.mark.parametrize(("body", "field"), [
    ({"events": []}, "window"),  # neither window nor install_time
    ({"events": [], "window": 3}, "window"),
    ({"events": [], "window": "0"}, "window"),
    ({"events": [], "window": True}, "window"),
    ({"events": {}, "window": 0}, "events"),
    ({"window": 0}, "events"),
    ({"events": [{"event_name": "x"}], "window": 0}, "events"),  # no timestamp
    ({"events": [{"event_name": 5, "timestamp": 1_700_000_000_000}], "window": 0}, "events"),
    ({"events": [{"event_name": "x", "timestamp": "today"}], "window": 0}, "events"),
    ({"events": [{"event_name": "x", "timestamp": 5}], "window": 0}, "events"),
    ({"events": [{"event_name": "x", "revenue": 2, "timestamp": 1_700_000_000_000}],
      "window": 0}, "events"),  # revenue without a currency
    ({"events": [{"event_name": "x", "revenue": "lots", "currency": "USD",
                  "timestamp": 1_700_000_000_000}], "window": 0}, "events"),
    ({"events": [{"event_name": "x", "revenue": 2, "currency": "ZZZ",
                  "timestamp": 1_700_000_000_000}], "window": 0}, "events"),
    ({"events": [{"event_name": "x", "revenue": 2, "currency": "XYZ",
                  "timestamp": 1_700_000_000_000}], "window": 0}, "events"),
    ({"events": [], "install_time": "yesterday"}, "install_time"),
    ({"events": [{"event_name": "x", "timestamp": 1}] * 1001, "window": 0}, "events"),
])
def test_bad_bodies_are_a_400_naming_the_field(sdk, app, schema, body, field):
    response = sdk.post(VALUE_URL, {"app_id": str(app.id), **body}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]


@pytest.mark.parametrize("raw", ["[]", "{not json", '"text"'])
def test_a_body_that_is_no_object_is_a_400(sdk, app, schema, raw):
    response = sdk.post(VALUE_URL, raw, content_type="application/json")
    assert response.status_code == 400


def test_unknown_fields_are_ignored_for_newer_sdks(sdk, app, schema):
    response = ask(sdk, app, [], window=0, sdk_feature="future")
    assert response.status_code == 200


def test_a_missing_or_bad_key_is_a_401(api, app, schema):
    assert ask(api, app, [], window=0).status_code == 401
    assert api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 401
    api.credentials(HTTP_X_API_KEY="ak_live_nonsense")
    assert ask(api, app, [], window=0).status_code == 401
    assert api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 401


def test_another_apps_key_or_a_read_only_key_is_a_403(api, app, schema):
    other = AppFactory(organization=app.organization)
    api.credentials(HTTP_X_API_KEY=issue_key(other))
    assert ask(api, app, [], window=0).status_code == 403
    assert api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 403
    api.credentials(HTTP_X_API_KEY=issue_key(app, permissions=["read"]))
    assert ask(api, app, [], window=0).status_code == 403
    assert api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 403


def test_a_jwt_is_not_an_api_key(owner_api, app, schema):
    assert owner_api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code == 401
    assert ask(owner_api, app, [], window=0).status_code == 401


def test_the_keys_rate_limit_counts_both_endpoints(api, app, schema, one_rate_window):  # noqa: F811
    api.credentials(HTTP_X_API_KEY=issue_key(app, rate_limit=2))
    statuses = [api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code,
                ask(api, app, [], window=0).status_code,
                api.get(f"/api/v1/apps/{app.id}/conversion-schema").status_code,
                ask(api, app, [], window=0).status_code]
    assert statuses == [200, 200, 429, 429]


def test_timestamps_a_day_ahead_are_allowed_and_two_days_are_not(sdk, app, schema):
    ahead = datetime.now(UTC) + timedelta(hours=20)
    assert ask(sdk, app, [purchase(1, at=ahead)], window=0).status_code == 200
    too_far = datetime.now(UTC) + timedelta(days=2)
    assert ask(sdk, app, [purchase(1, at=too_far)], window=0).status_code == 400
