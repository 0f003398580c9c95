"""The two limits on an app: created with their defaults or given, read back, changed, and
every bad value refused with the field named (the API and the console's settings page)."""

import pytest

from apps_registry.models import App

pytestmark = pytest.mark.django_db

APPS = "/api/v1/apps"
BODY = {"name": "Runner", "platform": "android", "package_name": "com.example.runner"}


def test_an_app_is_created_with_thirty_days_of_addresses_and_two_years_of_rows(owner_api):
    response = owner_api.post(APPS, BODY, format="json")
    assert response.status_code == 201
    app = response.json()["data"]["app"]
    assert (app["ip_retention_days"], app["raw_retention_days"]) == (30, 730)
    stored = App.objects.get(id=app["id"])
    assert (stored.ip_retention_days, stored.raw_retention_days) == (30, 730)


def test_limits_given_at_creation_are_kept_and_read_back(owner_api):
    response = owner_api.post(APPS, {**BODY, "ip_retention_days": 7, "raw_retention_days": 90},
                              format="json")
    assert response.status_code == 201
    app_id = response.json()["data"]["app"]["id"]
    read = owner_api.get(f"{APPS}/{app_id}").json()["data"]["app"]
    assert (read["ip_retention_days"], read["raw_retention_days"]) == (7, 90)
    listed = owner_api.get(APPS).json()["data"]["apps"][0]
    assert listed["ip_retention_days"] == 7


def test_an_update_changes_either_limit(owner_api, app):
    response = owner_api.put(f"{APPS}/{app.id}", {"ip_retention_days": 14}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["app"]["ip_retention_days"] == 14
    response = owner_api.put(f"{APPS}/{app.id}", {"raw_retention_days": 365}, format="json")
    assert response.status_code == 200
    app.refresh_from_db()
    assert (app.ip_retention_days, app.raw_retention_days) == (14, 365)


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"ip_retention_days": "30"}, "ip_retention_days", "Must be an integer."),
    ({"ip_retention_days": 30.5}, "ip_retention_days", "Must be an integer."),
    ({"ip_retention_days": True}, "ip_retention_days", "Must be an integer."),
    ({"ip_retention_days": None}, "ip_retention_days", "null"),
    ({"ip_retention_days": 0}, "ip_retention_days", "at least 1 day"),
    ({"ip_retention_days": 3651}, "ip_retention_days", "at most 3650"),
    ({"raw_retention_days": "730"}, "raw_retention_days", "Must be an integer."),
    ({"raw_retention_days": 44}, "raw_retention_days", "at least 45 days"),
    ({"raw_retention_days": 3651}, "raw_retention_days", "at most 3650"),
    ({"ip_retention_days": 100, "raw_retention_days": 60}, "raw_retention_days",
     "at least ip_retention_days (100)"),
    # Against the default raw limit: only the IP limit was sent, so it is the one named.
    ({"ip_retention_days": 800}, "ip_retention_days", "at most raw_retention_days (730)"),
])
def test_a_bad_limit_at_creation_is_a_400_naming_the_field(owner_api, body, field, words):
    response = owner_api.post(APPS, {**BODY, **body}, format="json")
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert list(error["details"]) == [field]
    assert words in error["details"][field][0]
    assert not App.objects.exists()


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"ip_retention_days": -1}, "ip_retention_days", "at least 1 day"),
    ({"ip_retention_days": []}, "ip_retention_days", "Must be an integer."),
    ({"raw_retention_days": 10}, "raw_retention_days", "at least 45 days"),
    # Against the stored raw limit (730): only the IP limit was sent, so it is named.
    ({"ip_retention_days": 731}, "ip_retention_days", "at most raw_retention_days (730)"),
])
def test_a_bad_limit_in_an_update_is_a_400_naming_the_field(owner_api, app, body, field, words):
    response = owner_api.put(f"{APPS}/{app.id}", body, format="json")
    assert response.status_code == 400, response.json()
    details = response.json()["error"]["details"]
    assert list(details) == [field] and words in details[field][0]
    app.refresh_from_db()
    assert (app.ip_retention_days, app.raw_retention_days) == (30, 730)


def test_a_raw_limit_below_the_stored_ip_limit_is_refused(owner_api, app):
    app.ip_retention_days, app.raw_retention_days = 100, 200
    app.save()
    response = owner_api.put(f"{APPS}/{app.id}", {"raw_retention_days": 99}, format="json")
    assert response.status_code == 400
    assert "at least ip_retention_days (100)" in \
        response.json()["error"]["details"]["raw_retention_days"][0]


# --- The console's settings page ----------------------------------------------------------

def test_the_settings_page_shows_both_limits_as_number_fields(logged_in, app):
    html = logged_in.get(f"/console/apps/{app.id}/settings").content.decode()
    assert '<input id="id_ip_retention_days" name="ip_retention_days" type="number" ' \
           'value="30"' in html
    assert 'name="raw_retention_days" type="number" value="730"' in html


def test_the_settings_page_saves_new_limits(logged_in, app):
    response = logged_in.post(f"/console/apps/{app.id}/settings", {
        "name": app.name, "ip_retention_days": "14", "raw_retention_days": "365"})
    assert response.status_code == 302
    app.refresh_from_db()
    assert (app.ip_retention_days, app.raw_retention_days) == (14, 365)


def test_the_settings_page_says_what_is_wrong_beside_the_field(logged_in, app):
    response = logged_in.post(f"/console/apps/{app.id}/settings", {
        "name": app.name, "ip_retention_days": "ninety", "raw_retention_days": "20"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_ip_retention_days"' in html and "Must be an integer." in html
    assert 'id="err_raw_retention_days"' in html and "at least 45 days" in html
    assert 'value="ninety"' in html  # what was typed comes back to be corrected
    app.refresh_from_db()
    assert (app.ip_retention_days, app.raw_retention_days) == (30, 730)


def test_a_new_app_in_the_console_starts_with_the_defaults(logged_in, owner):
    html = logged_in.get("/console/apps/new").content.decode()
    assert 'name="ip_retention_days" type="number" value="30"' in html
    response = logged_in.post("/console/apps/new", {
        "name": "Strict", "platform": "android", "package_name": "com.example.strict",
        "ip_retention_days": "3", "raw_retention_days": "45"})
    assert response.status_code == 302
    stored = App.objects.get(name="Strict")
    assert (stored.ip_retention_days, stored.raw_retention_days) == (3, 45)
