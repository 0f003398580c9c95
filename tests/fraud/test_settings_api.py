"""GET/PUT /api/v1/apps/{id}/fraud-settings: defaults, changes, validation, who may."""

import pytest

from fraud import selectors
from tests.factories import UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

DEFAULTS = {
    "engagement_injection_mode": "block", "ctit_anomalies_mode": "flag",
    "ctit_floor_seconds": 10, "too_many_engagements_mode": "flag",
    "too_many_engagements_per_hour": 5, "click_flood_mode": "block",
    "anonymous_traffic_mode": "off", "listed_networks": [], "bots_mode": "block",
    "test_devices": [], "signing_mode": "off"}


def url(app):
    return f"/api/v1/apps/{app.id}/fraud-settings"


def test_an_app_without_settings_has_the_documented_defaults(owner_api, app):
    response = owner_api.get(url(app))
    assert response.status_code == 200
    assert response.json()["data"]["fraud_settings"] == DEFAULTS


def test_a_put_changes_the_fields_sent_and_keeps_the_others(owner_api, app):
    response = owner_api.put(url(app), {
        "ctit_anomalies_mode": "block", "ctit_floor_seconds": 20,
        "listed_networks": ["203.0.113.7/24", "2001:db8::/32", "203.0.113.0/24"],
        "test_devices": [" GAID-TEST "], "signing_mode": "enforce"}, format="json")
    assert response.status_code == 200
    body = response.json()["data"]["fraud_settings"]
    assert body == {**DEFAULTS, "ctit_anomalies_mode": "block", "ctit_floor_seconds": 20,
                    "listed_networks": ["203.0.113.0/24", "2001:db8::/32"],
                    "test_devices": ["gaid-test"], "signing_mode": "enforce"}
    assert owner_api.get(url(app)).json()["data"]["fraud_settings"] == body
    assert selectors.settings_of(app.id).ctit_floor_seconds == 20


@pytest.mark.parametrize(("body", "field"), [
    ({"ctit_anomalies_mode": "maybe"}, "ctit_anomalies_mode"),
    ({"signing_mode": "block"}, "signing_mode"),
    ({"ctit_floor_seconds": -1}, "ctit_floor_seconds"),
    ({"ctit_floor_seconds": "10"}, "ctit_floor_seconds"),
    ({"ctit_floor_seconds": 3601}, "ctit_floor_seconds"),
    ({"too_many_engagements_per_hour": 0}, "too_many_engagements_per_hour"),
    ({"listed_networks": ["10.0.0.0/33"]}, "listed_networks"),
    ({"listed_networks": "10.0.0.0/8"}, "listed_networks"),
    ({"test_devices": [""]}, "test_devices"),
    ({"test_devices": ["x"] * 101}, "test_devices"),
    ({"bots": "off"}, "bots"),
])
def test_every_bad_field_is_a_400_naming_it(owner_api, app, body, field):
    response = owner_api.put(url(app), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]
    assert owner_api.get(url(app)).json()["data"]["fraud_settings"] == DEFAULTS


def test_a_body_that_is_not_an_object_is_a_400(owner_api, app):
    response = owner_api.put(url(app), ["block"], format="json")
    assert response.status_code == 400


def test_another_organizations_app_is_not_found(outsider_api, app):
    assert outsider_api.get(url(app)).status_code == 404
    assert outsider_api.put(url(app), {"bots_mode": "off"}, format="json").status_code == 404


def test_a_marketer_neither_reads_nor_changes_and_a_developer_does_both(app):
    marketer = UserFactory(organization=app.organization, role="marketer",
                           email="marketer@example.com")
    api = client_for(marketer)
    assert api.get(url(app)).status_code == 403
    response = api.put(url(app), {"bots_mode": "off"}, format="json")
    assert response.status_code == 403
    assert selectors.settings_of(app.id).bots_mode == "block"
    developer = client_for(UserFactory(organization=app.organization, role="developer"))
    assert developer.get(url(app)).status_code == 200
    assert developer.put(url(app), {"bots_mode": "off"}, format="json").status_code == 200


def test_without_a_token_it_is_a_401(api, app):
    assert api.get(url(app)).status_code == 401
