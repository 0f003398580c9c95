"""The reference's Authentication, App and API key endpoints, as written there."""

import re
import uuid

import pytest

from tests.contract.helpers import PASSWORD, Caller, android_app, data, error, install, sign_up


def test_signup_answers_a_token_and_an_admin_user_of_a_new_organization(service):
    email = f"new-{uuid.uuid4().hex[:10]}@example.com"
    answer = data(Caller(service).post("auth/signup", {
        "email": email, "password": PASSWORD, "name": "Ada", "company_name": "Acme"}), 201)
    assert isinstance(answer["token"], str) and answer["token"]
    user = answer["user"]
    assert (user["email"], user["name"], user["role"]) == (email, "Ada", "admin")
    uuid.UUID(user["id"]), uuid.UUID(user["org_id"])


def test_signup_refuses_a_taken_email_and_a_short_password(service, owner):
    caller = Caller(service)
    error(caller.post("auth/signup", {"email": owner.email, "password": PASSWORD,
                                      "name": "Again", "company_name": "Again"}), 409, "CONFLICT")
    short = error(caller.post("auth/signup", {"email": "short@example.com", "password": "1234567",
                                              "name": "S", "company_name": "S"}),
                  400, "VALIDATION_ERROR")
    assert "password" in short["details"]


def test_login_and_me(service, owner):
    caller = Caller(service)
    answer = data(caller.post("auth/login", {"email": owner.email, "password": PASSWORD}), 200)
    assert answer["user"] == owner.user
    assert data(caller.get("auth/me", token=answer["token"]), 200) == owner.user
    error(caller.post("auth/login", {"email": owner.email, "password": "wrong password"}),
          401, "UNAUTHORIZED")
    error(caller.post("auth/login", {"email": owner.email}), 400, "VALIDATION_ERROR")
    error(caller.get("auth/me"), 401, "UNAUTHORIZED")
    error(caller.get("auth/me", token="not-a-token"), 401, "UNAUTHORIZED")


def test_apps_are_created_read_updated_listed_and_deleted(owner):
    caller = owner.caller
    app = data(caller.post("apps", {
        "name": "Runner", "platform": "ios", "bundle_id": "com.contract.runner",
        "apple_app_id": "1234567890",
        "app_store_url": "https://apps.apple.com/app/id1234567890"}), 201)["app"]
    assert (app["name"], app["platform"], app["bundle_id"]) == (
        "Runner", "ios", "com.contract.runner")
    assert app["app_store_url"] == "https://apps.apple.com/app/id1234567890"
    one = data(caller.get(f"apps/{app['id']}"), 200)["app"]
    assert one["api_key_count"] == 0 and one["id"] == app["id"]
    [listed] = data(caller.get("apps"), 200)["apps"]
    assert {"id", "name", "platform", "bundle_id", "package_name", "domain", "app_store_url",
            "play_store_url", "created_at", "updated_at"} <= set(listed)
    assert (listed["package_name"], listed["domain"], listed["play_store_url"]) == (
        None, None, None)
    data(caller.put(f"apps/{app['id']}", {"name": "Runner 2"}), 200)
    assert data(caller.get(f"apps/{app['id']}"), 200)["app"]["name"] == "Runner 2"
    assert data(caller.delete(f"apps/{app['id']}"), 200) == {"success": True}
    error(caller.get(f"apps/{app['id']}"), 404, "NOT_FOUND")


@pytest.mark.parametrize(("body", "field"), [
    ({"name": "I", "platform": "ios"}, "bundle_id"),
    ({"name": "A", "platform": "android"}, "package_name"),
    ({"name": "W", "platform": "web"}, "domain"),
    ({"platform": "android", "package_name": "com.x"}, "name"),
    ({"name": "P", "platform": "windows"}, "platform"),
])
def test_an_app_without_what_its_platform_needs_is_a_400_naming_it(owner, body, field):
    assert field in error(owner.caller.post("apps", body), 400, "VALIDATION_ERROR")["details"]


def test_an_app_identifier_twice_is_a_409_and_another_organizations_app_a_404(service, owner):
    app = android_app(owner)
    error(owner.caller.post("apps", {"name": "Again", "platform": "android",
                                     "package_name": app.app["package_name"]}), 409, "CONFLICT")
    stranger = sign_up(service)
    error(stranger.caller.get(f"apps/{app.id}"), 404, "NOT_FOUND")


def test_a_key_is_shown_once_and_stops_at_once_when_revoked(owner):
    caller = owner.caller
    app = data(caller.post("apps", {"name": "K", "platform": "android",
                                    "package_name": "com.contract.keys"}), 201)["app"]
    key = data(caller.post(f"apps/{app['id']}/keys", {}), 201)["key"]
    assert re.fullmatch(rf"ak_{re.escape(key['id'])}_\S+", key["full_key"]), key
    assert key["permissions"] == ["write"] and key["last_used_at"] is None
    assert key["key_prefix"].endswith("…") or key["key_prefix"].endswith("...")
    [listed] = data(caller.get(f"apps/{app['id']}/keys"), 200)["keys"]
    assert "full_key" not in listed
    assert {"id", "key_prefix", "name", "permissions", "rate_limit", "created_at",
            "last_used_at", "expires_at"} <= set(listed)
    assert data(caller.get(f"apps/{app['id']}"), 200)["app"]["api_key_count"] == 1
    sdk_app = type("App", (), {"id": app["id"], "key": key["full_key"]})
    assert install(caller, sdk_app, device_id=str(uuid.uuid4())).status_code == 201
    assert data(caller.delete(f"keys/{key['id']}"), 200) == {"success": True}
    error(install(caller, sdk_app, device_id=str(uuid.uuid4())), 401, "UNAUTHORIZED")
