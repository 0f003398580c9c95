"""The conversion-schema versions (JWT): the owner saves versions and reads them, the newest is
active, nothing is ever changed in place, bad rules are a 400 naming each field, and another
organization's app is a 404."""

from __future__ import annotations

import copy

import pytest

from conversion.models import ConversionSchema
from tests.conversion.samples import SCHEMA

pytestmark = pytest.mark.django_db


def url(app, version=None) -> str:
    base = f"/api/v1/apps/{app.id}/conversion-schemas"
    return base if version is None else f"{base}/{version}"


def save(client, app, raw=SCHEMA):
    return client.post(url(app), raw, format="json")


def test_the_owner_saves_a_first_version_that_is_active(owner_api, app):
    response = save(owner_api, app)
    assert response.status_code == 201
    schema = response.json()["data"]["schema"]
    assert (schema["version"], schema["active"], schema["currency"]) == (1, True, "USD")
    assert schema["windows"][0]["lock_window"] is True
    assert schema["windows"][0]["rules"][2] == {
        "coarse": "medium", "fine": 20, "event_name": "purchase", "min_count": 1,
        "min_revenue": "0.01", "max_revenue": "5"}
    assert schema["windows"][1]["rules"][0] == {
        "coarse": "low", "fine": None, "event_name": None, "min_count": 1,
        "min_revenue": None, "max_revenue": None}
    stored = ConversionSchema.objects.get()
    assert (stored.app_id, stored.version) == (app.id, 1)


def test_a_change_is_a_new_version_and_the_old_one_stays(owner_api, app):
    save(owner_api, app)
    changed = copy.deepcopy(SCHEMA)
    changed["windows"][0]["rules"][2]["max_revenue"] = 4
    changed["windows"][0]["rules"][3]["min_revenue"] = 4
    assert save(owner_api, app, changed).json()["data"]["schema"]["version"] == 2

    listed = owner_api.get(url(app)).json()["data"]["schemas"]
    assert [(s["version"], s["active"]) for s in listed] == [(2, True), (1, False)]
    first = owner_api.get(url(app, 1)).json()["data"]["schema"]
    assert first["active"] is False
    assert first["windows"][0]["rules"][2]["max_revenue"] == "5"
    assert owner_api.get(url(app, 2)).json()["data"]["schema"]["active"] is True


def test_there_is_no_way_to_edit_or_delete_a_version(owner_api, app):
    save(owner_api, app)
    for method in ("put", "patch", "delete"):
        response = getattr(owner_api, method)(url(app, 1), SCHEMA, format="json")
        assert response.status_code == 405
    assert ConversionSchema.objects.get().document["windows"][0]["rules"][2]["fine"] == 20


def test_an_app_without_versions_lists_none(owner_api, app):
    response = owner_api.get(url(app))
    assert response.status_code == 200
    assert response.json()["data"] == {"schemas": []}


def test_an_unknown_version_is_a_404(owner_api, app):
    save(owner_api, app)
    response = owner_api.get(url(app, 2))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_bad_rules_are_a_400_naming_each_field_and_store_nothing(owner_api, app):
    raw = copy.deepcopy(SCHEMA)
    raw["windows"][0]["rules"][1]["fine"] = 64
    raw["windows"][1]["rules"][0]["fine"] = 1
    raw["windows"][0]["rules"][3]["min_revenue"] = "4.5"
    response = save(owner_api, app, raw)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert set(error["details"]) == {"windows[0].rules[1].fine", "windows[1].rules[0].fine",
                                     "windows[0].rules[3]"}
    assert "overlaps rule 2" in error["details"]["windows[0].rules[3]"][0]
    assert not ConversionSchema.objects.exists()


@pytest.mark.parametrize("body", [[], "rules", {"windows": "three"}, {}])
def test_a_body_that_is_no_schema_is_a_400(owner_api, app, body):
    response = owner_api.post(url(app), body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"]


def test_malformed_json_is_a_400(owner_api, app):
    response = owner_api.post(url(app), "{not json", content_type="application/json")
    assert response.status_code == 400


def test_another_organizations_app_is_a_404(outsider_api, owner_api, app):
    save(owner_api, app)
    for response in (outsider_api.get(url(app)), outsider_api.get(url(app, 1)),
                     save(outsider_api, app)):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"
    assert ConversionSchema.objects.count() == 1


def test_without_a_token_it_is_a_401(api, app):
    assert api.get(url(app)).status_code == 401


def test_the_endpoints_are_in_the_openapi_schema(api):
    paths = api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/apps/{app_id}/conversion-schemas"])
    assert "get" in paths["/api/v1/apps/{app_id}/conversion-schemas/{version}"]
    assert "get" in paths["/api/v1/apps/{app_id}/conversion-schema"]
    assert "post" in paths["/api/v1/conversion-value"]
    assert "get" in paths["/api/v1/analytics/skan"]


def test_a_currency_that_does_not_exist_is_a_400_naming_it(owner_api, app):
    response = save(owner_api, app, {**SCHEMA, "currency": "XYZ"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["details"] == {"currency": ["Must be an ISO 4217 code such as USD."]}
    assert not ConversionSchema.objects.exists()
