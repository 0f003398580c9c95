"""Web keys: created with their origins, refused where a server key belongs (docs/web.md,
"Web keys")."""

import pytest

from apps_registry import keys
from tests.factories import AppFactory, issue_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def web_app(owner):
    return AppFactory(organization=owner.organization, platform="web", domain="shop.example",
                      package_name=None, play_store_url=None, app_store_url=None)


def keys_url(app):
    return f"/api/v1/apps/{app.id}/keys"


@pytest.mark.parametrize(("given", "stored"), [
    ("https://shop.example", "https://shop.example"),
    ("HTTPS://Shop.Example:443/", "https://shop.example"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://[::1]:3000", "http://[::1]:3000"),
])
def test_an_origin_is_kept_as_a_browser_writes_it(given, stored):
    assert keys.origin_parse(given) == (stored, None)


@pytest.mark.parametrize("given", [
    "shop.example", "ftp://shop.example", "https://shop.example/path", "https://*.shop.example",
    "https://shop.example?x=1", "https://user@shop.example", "https://shop.example:99999", "",
])
def test_anything_but_scheme_host_and_port_is_not_an_origin(given):
    origin, problem = keys.origin_parse(given)
    assert origin is None and problem


def test_a_web_key_is_created_with_its_origins(owner_api, web_app):
    response = owner_api.post(keys_url(web_app), {
        "name": "site", "kind": "web",
        "allowed_origins": ["https://shop.example", "https://WWW.shop.example/"]}, format="json")
    assert response.status_code == 201
    key = response.json()["data"]["key"]
    assert key["kind"] == "web" and key["permissions"] == ["write"]
    assert key["allowed_origins"] == ["https://shop.example", "https://www.shop.example"]
    listed = owner_api.get(keys_url(web_app)).json()["data"]["keys"]
    assert listed[0]["kind"] == "web"


def test_a_key_is_a_server_key_by_default(owner_api, web_app):
    key = owner_api.post(keys_url(web_app), {}, format="json").json()["data"]["key"]
    assert key["kind"] == "server" and key["allowed_origins"] == []


@pytest.mark.parametrize(("body", "field"), [
    ({"kind": "web"}, "allowed_origins"),
    ({"kind": "web", "allowed_origins": []}, "allowed_origins"),
    ({"kind": "web", "allowed_origins": [f"https://s{i}.example" for i in range(21)]},
     "allowed_origins"),
    ({"kind": "web", "allowed_origins": ["https://shop.example/checkout"]}, "allowed_origins"),
    ({"kind": "web", "allowed_origins": [7]}, "allowed_origins"),
    ({"kind": "web", "allowed_origins": ["https://shop.example"], "signing": True}, "signing"),
    ({"kind": "web", "allowed_origins": ["https://shop.example"], "permissions": ["read"]},
     "permissions"),
    ({"allowed_origins": ["https://shop.example"]}, "allowed_origins"),
    ({"kind": "browser"}, "kind"),
])
def test_a_bad_web_key_request_names_the_field(owner_api, web_app, body, field):
    response = owner_api.post(keys_url(web_app), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]


def test_a_web_key_is_only_for_a_web_app(owner_api, app):
    response = owner_api.post(keys_url(app), {
        "kind": "web", "allowed_origins": ["https://shop.example"]}, format="json")
    assert response.status_code == 400 and "kind" in response.json()["error"]["details"]


def test_a_web_key_is_refused_on_installs_events_and_reads(api, web_app):
    web_key = issue_key(web_app, kind="web", allowed_origins=["https://shop.example"])
    install = api.post("/api/v1/installs", {"app_id": str(web_app.id), "platform": "web",
                                            "sdk_version": "1", "device_id": "x"},
                       format="json", HTTP_X_API_KEY=web_key)
    events = api.post("/api/v1/events", {"app_id": str(web_app.id), "events": []},
                      format="json", HTTP_X_API_KEY=web_key)
    beacon = api.post("/api/v1/events", {"app_id": str(web_app.id), "events": [],
                                         "_api_key": web_key}, format="json")
    read = api.get(f"/api/v1/installs?app_id={web_app.id}", HTTP_X_API_KEY=web_key)
    for response in (install, events, beacon):
        assert response.status_code == 403
        assert "web key" in response.json()["error"]["message"]
    assert read.status_code in (401, 403)
