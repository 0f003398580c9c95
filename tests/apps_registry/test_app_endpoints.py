"""Apps: list, create, read, update, delete, scoped to the caller's organization."""

import pytest

from apps_registry.models import ApiKey, App
from tests.factories import AppFactory, issue_key

pytestmark = pytest.mark.django_db

APPS = "/api/v1/apps"


def android_app(**overrides):
    body = {"name": "Runner", "platform": "android", "package_name": "com.example.runner",
            "play_store_url": "https://play.google.com/store/apps/details?id=com.example.runner"}
    body.update(overrides)
    return body


def test_owner_creates_an_android_app(owner_api, owner):
    response = owner_api.post(APPS, android_app(), format="json")
    assert response.status_code == 201
    app = response.json()["data"]["app"]
    assert app["name"] == "Runner"
    assert app["package_name"] == "com.example.runner"
    assert app["play_store_url"].startswith("https://play.google.com/")
    assert app["bundle_id"] is None and app["domain"] is None
    assert app["created_at"].endswith("Z")
    stored = App.objects.get(id=app["id"])
    assert stored.organization_id == owner.organization_id


@pytest.mark.parametrize("body,field", [
    ({"name": "I", "platform": "ios"}, "bundle_id"),
    ({"name": "A", "platform": "android"}, "package_name"),
    ({"name": "W", "platform": "web"}, "domain"),
    ({"name": "X", "platform": "windows", "domain": "x.com"}, "platform"),
    ({"platform": "web", "domain": "x.com"}, "name"),
    ({"name": 5, "platform": "web", "domain": "x.com"}, "name"),
    ({"name": "W", "platform": "web", "domain": "not a domain"}, "domain"),
    ({"name": "W", "platform": "web", "domain": "x.com", "app_store_url": "ftp://x"},
     "app_store_url"),
    ({"name": "W", "platform": "web", "domain": "x.com", "play_store_url": "javascript:x"},
     "play_store_url"),
    ({"name": "W", "platform": "web", "domain": "x.com", "colour": "red"}, "colour"),
    ({"name": "I", "platform": "ios", "bundle_id": "com.x", "apple_app_id": "abc"},
     "apple_app_id"),
])
def test_invalid_app_is_rejected_with_the_field_named(owner_api, body, field):
    response = owner_api.post(APPS, body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["details"]
    assert App.objects.count() == 0


def test_ios_and_web_apps_need_their_own_identifiers(owner_api):
    ios = owner_api.post(APPS, {"name": "I", "platform": "ios", "bundle_id": "com.example.i",
                                "apple_app_id": "123456"}, format="json")
    web = owner_api.post(APPS, {"name": "W", "platform": "web", "domain": "App.Example.com"},
                         format="json")
    assert ios.status_code == 201 and web.status_code == 201
    assert ios.json()["data"]["app"]["apple_app_id"] == "123456"
    assert web.json()["data"]["app"]["domain"] == "app.example.com"


def test_identifier_already_used_in_organization_is_conflict(owner_api):
    owner_api.post(APPS, android_app(), format="json")
    response = owner_api.post(APPS, android_app(name="Copy"), format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert App.objects.count() == 1


def test_same_identifier_in_another_organization_is_allowed(owner_api, outsider_api):
    assert owner_api.post(APPS, android_app(), format="json").status_code == 201
    assert outsider_api.post(APPS, android_app(), format="json").status_code == 201


def test_list_shows_only_the_callers_apps(owner_api, owner, outsider_api):
    AppFactory(organization=owner.organization, name="Mine")
    AppFactory(name="Theirs")
    response = owner_api.get(APPS)
    assert response.status_code == 200
    assert [a["name"] for a in response.json()["data"]["apps"]] == ["Mine"]
    assert outsider_api.get(APPS).json()["data"]["apps"] == []


def test_read_includes_active_key_count(owner_api, app):
    issue_key(app)
    issue_key(app)
    revoked = ApiKey.objects.first()
    owner_api.delete(f"/api/v1/keys/{revoked.id}")
    response = owner_api.get(f"{APPS}/{app.id}")
    assert response.status_code == 200
    assert response.json()["data"]["app"]["api_key_count"] == 1


def test_update_changes_only_the_fields_sent(owner_api, app):
    before = app.play_store_url
    response = owner_api.put(f"{APPS}/{app.id}", {"name": "Renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["app"]["name"] == "Renamed"
    app.refresh_from_db()
    assert app.name == "Renamed" and app.play_store_url == before
    assert app.updated_at > app.created_at


def test_update_can_clear_a_store_url(owner_api, app):
    response = owner_api.put(f"{APPS}/{app.id}", {"app_store_url": None}, format="json")
    assert response.status_code == 200
    app.refresh_from_db()
    assert app.app_store_url is None


@pytest.mark.parametrize("body,field", [
    ({"platform": "ios"}, "platform"),
    ({"package_name": "com.other"}, "package_name"),
    ({"play_store_url": "not a url"}, "play_store_url"),
    ({"name": ""}, "name"),
])
def test_update_refuses_fields_that_cannot_change_or_are_invalid(owner_api, app, body, field):
    response = owner_api.put(f"{APPS}/{app.id}", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_delete_removes_the_app_and_its_keys(owner_api, app, sdk_key):
    response = owner_api.delete(f"{APPS}/{app.id}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not App.objects.filter(id=app.id).exists()
    assert not ApiKey.objects.filter(app_id=app.id).exists()


@pytest.mark.parametrize("method,suffix,body", [
    ("get", "", None), ("put", "", {"name": "x"}), ("delete", "", None),
    ("get", "/keys", None), ("post", "/keys", {}),
])
def test_another_organizations_app_is_not_found_on_every_verb(outsider_api, app, method,
                                                              suffix, body):
    response = getattr(outsider_api, method)(f"{APPS}/{app.id}{suffix}", body, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"
    app.refresh_from_db()
    assert app.name != "x"
    assert ApiKey.objects.count() == 0


def test_unknown_app_is_not_found(owner_api):
    response = owner_api.get(f"{APPS}/00000000-0000-0000-0000-000000000001")
    assert response.status_code == 404


def test_app_routes_require_a_token(api, app):
    assert api.get(APPS).status_code == 401
    assert api.get(f"{APPS}/{app.id}").status_code == 401
