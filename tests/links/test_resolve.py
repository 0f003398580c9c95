"""POST /api/v1/deeplinks/resolve: an app opened through a universal link or app link gets its
link's deep link, and the open is counted for the link; anything that is not a live link of
the key's app is a 404 in the envelope, and bad input a 400 with field details."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from links.models import Link, LinkDomain, LinkOpen
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import install_body
from tracking.models import Click, Install, Reengagement

pytestmark = pytest.mark.django_db

SERVICE = "https://links.example.com"
_codes = count(1)


@pytest.fixture
def sdk(sdk_key):
    """The app's SDK, holding its API key."""
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


@pytest.fixture
def brand_domain(app):
    return LinkDomain.objects.create(organization=app.organization, host="go.example.com")


def make_link(app, **overrides) -> Link:
    values = {"app": app, "code": f"summer-{next(_codes)}", "media_source": "instagram",
              "campaign_id": "summer", "deep_link_value": "promo/summer",
              "params": {"tab": "deals"}}
    values.update(overrides)
    return Link.objects.create(**values)


def resolve(sdk, app, url, **extra):
    body = {"app_id": str(app.id), "url": url, **extra}
    return sdk.post("/api/v1/deeplinks/resolve", body, format="json")


def payload(link) -> dict:
    return {"value": link.deep_link_value or None, "params": link.params,
            "link_id": str(link.id)}


def assert_not_found(response):
    assert response.status_code == 404
    body = response.json()
    assert body["success"] is False and body["error"]["code"] == "NOT_FOUND"
    assert not LinkOpen.objects.exists()


def test_a_link_on_the_service_host_resolves_to_its_deep_link(sdk, app):
    link = make_link(app)

    response = resolve(sdk, app, f"{SERVICE}/l/{link.code}?utm_source=story#top")

    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"deepLink": payload(link)}}


def test_the_open_is_recorded_with_the_devices_install(sdk, app):
    link = make_link(app)
    installed = sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"),
                         format="json").json()["data"]

    resolve(sdk, app, f"{SERVICE}/l/{link.code}", device_id=" GAID-1 ")

    opened = LinkOpen.objects.get()
    assert (opened.link_id, opened.app_id, opened.device_id, str(opened.install_id)) == (
        link.id, app.id, "gaid-1", installed["installId"])


def test_an_open_from_an_unknown_device_is_recorded_without_an_install(sdk, app):
    link = make_link(app)

    resolve(sdk, app, f"{SERVICE}/l/{link.code}", device_id="gaid-never-installed")
    resolve(sdk, app, f"{SERVICE}/l/{link.code}")

    assert list(LinkOpen.objects.order_by("id").values_list("device_id", "install_id")) == [
        ("gaid-never-installed", None), (None, None)]


def test_an_open_records_no_click_and_no_reengagement(sdk, app):
    link = make_link(app)
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-2"), format="json")

    resolve(sdk, app, f"{SERVICE}/l/{link.code}", device_id="gaid-2")

    assert not Click.objects.exists() and not Reengagement.objects.exists()
    assert Install.objects.count() == 1


def test_a_link_on_the_organizations_domain_resolves_by_host_and_code(sdk, app, brand_domain):
    link = make_link(app, domain=brand_domain)

    response = resolve(sdk, app, f"https://GO.example.com/{link.code}/?ref=qr")

    assert (response.status_code, response.json()["data"]) == (200, {"deepLink": payload(link)})
    assert LinkOpen.objects.get().link_id == link.id


def test_a_domain_link_is_not_found_under_the_service_hosts_path(sdk, app, brand_domain):
    link = make_link(app, domain=brand_domain)
    assert_not_found(resolve(sdk, app, f"{SERVICE}/l/{link.code}"))
    assert_not_found(resolve(sdk, app, f"https://go.example.com/l/{link.code}"))


def test_a_service_host_link_is_not_found_on_a_link_domain(sdk, app, brand_domain):
    link = make_link(app)
    assert_not_found(resolve(sdk, app, f"https://go.example.com/{link.code}"))


def test_an_unknown_code_is_not_found(sdk, app):
    response = resolve(sdk, app, f"{SERVICE}/l/no-such-code")
    assert_not_found(response)
    assert response.json()["error"]["details"] == {
        "url": ["Names no active, unexpired link of this app."]}


@pytest.mark.parametrize("path", ["/", "/l/", "/about", "/l/a/b", "/l/%00", "/l/%2Fx",
                                  "/l/caf%C3%A9", "/l/" + "a" * 65, "/l/a%20b"])
def test_a_url_that_is_not_a_link_is_not_found(sdk, app, path):
    make_link(app, code="a")
    assert_not_found(resolve(sdk, app, f"{SERVICE}{path}"))


def test_an_inactive_link_is_not_found(sdk, app):
    link = make_link(app, active=False)
    assert_not_found(resolve(sdk, app, f"{SERVICE}/l/{link.code}"))


def test_an_expired_link_is_not_found(sdk, app):
    link = make_link(app, expires_at=timezone.now() - timedelta(seconds=1))
    assert_not_found(resolve(sdk, app, f"{SERVICE}/l/{link.code}"))


def test_a_link_expiring_later_still_resolves(sdk, app):
    link = make_link(app, expires_at=timezone.now() + timedelta(days=1))
    assert resolve(sdk, app, f"{SERVICE}/l/{link.code}").status_code == 200


def test_another_apps_link_is_not_found_even_in_the_same_organization(sdk, app):
    sibling = AppFactory(organization=app.organization)
    link = make_link(sibling)
    assert_not_found(resolve(sdk, app, f"{SERVICE}/l/{link.code}"))


def test_a_key_for_another_app_is_refused(app):
    other = AppFactory()
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(other))
    link = make_link(app)

    response = resolve(client, app, f"{SERVICE}/l/{link.code}")

    assert response.status_code == 403
    assert response.json()["error"]["details"] == {
        "app_id": ["Does not match the API key's app."]}
    assert not LinkOpen.objects.exists()


def test_a_read_only_key_is_refused(app):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(app, permissions=["read"]))
    link = make_link(app)
    assert resolve(client, app, f"{SERVICE}/l/{link.code}").status_code == 403


def test_no_key_is_unauthorized(api, app):
    link = make_link(app)
    response = resolve(api, app, f"{SERVICE}/l/{link.code}")
    assert (response.status_code, response.json()["error"]["code"]) == (401, "UNAUTHORIZED")


@pytest.mark.parametrize(("body", "field"), [
    ({}, "url"),
    ({"url": None}, "url"),
    ({"url": ""}, "url"),
    ({"url": 42}, "url"),
    ({"url": "/l/abc"}, "url"),
    ({"url": "links.example.com/l/abc"}, "url"),
    ({"url": "javascript:alert(1)//https://links.example.com/l/abc"}, "url"),
    ({"url": "ftp://links.example.com/l/abc"}, "url"),
    ({"url": "myapp://l/abc"}, "url"),
    ({"url": f"{SERVICE}/l/" + "a" * 2100}, "url"),
    ({"url": f"{SERVICE}/l/abc", "device_id": "d" * 65}, "device_id"),
    ({"url": f"{SERVICE}/l/abc", "device_id": 7}, "device_id"),
    ({"url": f"{SERVICE}/l/abc", "app_id": "not-a-uuid"}, "app_id"),
])
def test_bad_input_is_a_400_naming_the_field(sdk, app, body, field):
    response = sdk.post("/api/v1/deeplinks/resolve", {"app_id": str(app.id), **body},
                        format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]
    assert not LinkOpen.objects.exists()


@pytest.mark.parametrize("raw", [b"[]", b"null", b'"https://links.example.com/l/a"', b"{",
                                 b"\xff\xfe{"])
def test_a_body_that_is_not_a_json_object_is_a_400_in_the_envelope(sdk, raw):
    response = sdk.post("/api/v1/deeplinks/resolve", data=raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_the_schema_documents_the_endpoint_and_the_install_deep_link(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/deeplinks/resolve"]["post"]
    assert operation["security"] == [{"apiKeyAuth": []}]
    assert {"200", "400", "401", "403", "404"} <= set(operation["responses"])
    not_found = operation["responses"]["404"]["content"]["application/json"]["schema"]
    assert not_found == {"$ref": "#/components/schemas/ErrorEnvelope"}
    assert {"app_id", "url", "device_id"} == set(
        schema["components"]["schemas"]["DeepLinkResolveInputRequest"]["properties"])
    result = schema["components"]["schemas"]["AttributionResult"]["properties"]
    assert "deepLink" in result
    assert set(schema["components"]["schemas"]["DeepLinkResult"]["properties"]) == {
        "value", "params", "link_id"}
