"""Links API: create, list, read, update and delete, scoped to the caller's organization; every
bad input answered with the envelope naming the field."""

from datetime import timedelta

import pytest
from django.utils import timezone

from links.models import Link, LinkDomain
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

LINKS = "/api/v1/links"


def link_body(app, **overrides):
    body = {"app_id": str(app.id), "media_source": "instagram", "campaign_id": "summer"}
    body.update(overrides)
    return body


def create(api, app, **overrides):
    return api.post(LINKS, link_body(app, **overrides), format="json")


def created(api, app, **overrides) -> dict:
    response = create(api, app, **overrides)
    assert response.status_code == 201, response.json()
    return response.json()["data"]["link"]


# --- Create ------------------------------------------------------------------------------------

def test_owner_creates_a_link_with_a_generated_code_and_its_short_url(owner_api, app):
    link = created(owner_api, app, name="Summer", adset="s1", ad="a1",
                   deep_link_value="product/42", params={"color": "red"})
    assert len(link["code"]) == 7
    assert link["short_url"] == f"http://testserver/l/{link['code']}"
    assert link["domain"] is None
    assert link["app_id"] == str(app.id)
    assert (link["name"], link["media_source"], link["campaign_id"], link["adset"], link["ad"]) \
        == ("Summer", "instagram", "summer", "s1", "a1")
    assert link["deep_link_value"] == "product/42" and link["params"] == {"color": "red"}
    assert link["ios_url"] is None and link["android_url"] is None and link["web_url"] is None
    assert link["active"] is True and link["expires_at"] is None
    assert link["created_at"].endswith("Z")
    stored = Link.objects.get(id=link["id"])
    assert stored.app_id == app.id and stored.code == link["code"] and stored.domain_id is None
    assert stored.ios_url is None  # the app's store URLs are the default at follow time


def test_every_field_is_stored_and_answered(owner_api, app):
    expires = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    link = created(owner_api, app, code="spring-25", ios_url="https://example.com/ios",
                   android_url="https://example.com/android", web_url="https://example.com/",
                   og_title="Spring", og_description="Deals", og_image_url="https://cdn.x/i.png",
                   expires_at=expires.isoformat(), active=False)
    assert link["code"] == "spring-25"
    assert (link["ios_url"], link["android_url"], link["web_url"]) == (
        "https://example.com/ios", "https://example.com/android", "https://example.com/")
    assert (link["og_title"], link["og_description"], link["og_image_url"]) == (
        "Spring", "Deals", "https://cdn.x/i.png")
    assert link["active"] is False
    stored = Link.objects.get(id=link["id"])
    assert stored.expires_at == expires and stored.active is False


def test_the_short_url_uses_links_base_url_when_set(owner_api, app, settings):
    settings.LINKS_BASE_URL = "https://go.attribution.example"
    link = created(owner_api, app, code="promo")
    assert link["short_url"] == "https://go.attribution.example/l/promo"


def test_a_link_on_the_organizations_own_domain_lives_at_its_root(owner_api, owner, app):
    LinkDomain.objects.create(organization=owner.organization, host="go.example.com")
    link = created(owner_api, app, code="promo", domain="Go.Example.com")
    assert link["domain"] == "go.example.com"
    assert link["short_url"] == "https://go.example.com/promo"
    assert Link.objects.get(id=link["id"]).domain.host == "go.example.com"


def test_the_apps_own_scheme_is_a_destination_for_ios_and_android(owner_api, owner):
    app = AppFactory(organization=owner.organization, url_scheme="runner")
    link = created(owner_api, app, ios_url="runner://product/42",
                   android_url="runner://product/42")
    assert link["ios_url"] == "runner://product/42"


def test_the_web_fallback_cannot_use_the_apps_scheme(owner_api, owner):
    app = AppFactory(organization=owner.organization, url_scheme="runner")
    response = create(owner_api, app, web_url="runner://product/42")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"web_url": ["Must be an absolute http(s) URL."]}
    assert Link.objects.count() == 0


def test_unknown_app_is_not_found(owner_api):
    response = owner_api.post(LINKS, {"app_id": "0190a000-0000-7000-8000-000000000000",
                                      "media_source": "x"}, format="json")
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "NOT_FOUND", "message": "App not found.",
                                        "details": {}}


def test_another_organizations_app_is_not_found(outsider_api, app):
    response = create(outsider_api, app)
    assert response.status_code == 404
    assert Link.objects.count() == 0


def test_a_link_needs_a_login(api, app):
    assert create(api, app).status_code == 401


@pytest.mark.parametrize("overrides,field", [
    ({"media_source": None}, "media_source"),
    ({"media_source": ""}, "media_source"),
    ({"media_source": "   "}, "media_source"),
    ({"media_source": 7}, "media_source"),
    ({"app_id": "not-a-uuid"}, "app_id"),
    ({"app_id": 12}, "app_id"),
    ({"code": "ab"}, "code"),
    ({"code": "has space"}, "code"),
    ({"code": "a/b"}, "code"),
    ({"code": " padded"}, "code"),
    ({"code": "x" * 65}, "code"),
    ({"code": "admin"}, "code"),
    ({"code": "Console"}, "code"),
    ({"code": 1234}, "code"),
    ({"ios_url": "javascript:alert(1)"}, "ios_url"),
    ({"android_url": "data:text/html,hi"}, "android_url"),
    ({"web_url": "/relative"}, "web_url"),
    ({"web_url": "//evil.example/"}, "web_url"),
    ({"ios_url": "otherapp://x"}, "ios_url"),
    ({"og_image_url": "javascript:alert(1)"}, "og_image_url"),
    ({"ios_url": 5}, "ios_url"),
    ({"ios_url": "https://example.com/" + "a" * 2048}, "ios_url"),
    ({"params": ["a"]}, "params"),
    ({"params": "a=1"}, "params"),
    ({"params": {"n": 1}}, "params"),
    ({"params": {"n": None}}, "params"),
    ({"params": {"nested": {"a": "b"}}}, "params"),
    ({"params": {f"k{i}": "v" for i in range(11)}}, "params"),
    ({"params": {"k" * 65: "v"}}, "params"),
    ({"params": {"": "v"}}, "params"),
    ({"params": {"k": "v" * 1025}}, "params"),
    ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
    ({"expires_at": "tomorrow"}, "expires_at"),
    ({"active": "yes"}, "active"),
    ({"name": "n" * 201}, "name"),
    ({"campaign_id": "c" * 256}, "campaign_id"),
    ({"deep_link_value": ["x"]}, "deep_link_value"),
    ({"domain": "go.unknown.example"}, "domain"),
    ({"colour": "red"}, "colour"),
])
def test_bad_input_is_refused_with_the_field_named(owner_api, app, overrides, field):
    response = create(owner_api, app, **overrides)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert field in error["details"]
    assert Link.objects.count() == 0


def test_a_body_that_is_not_an_object_is_refused(owner_api):
    response = owner_api.post(LINKS, ["x"], format="json")
    assert response.status_code == 400
    assert "non_field_errors" in response.json()["error"]["details"]


def test_ten_string_params_are_accepted(owner_api, app):
    params = {f"k{i}": "v" * 1024 for i in range(10)}
    assert created(owner_api, app, params=params)["params"] == params


def test_a_taken_code_is_a_conflict_naming_the_code(owner_api, app):
    created(owner_api, app, code="summer")
    response = create(owner_api, app, code="summer")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert list(response.json()["error"]["details"]) == ["code"]
    assert Link.objects.count() == 1


def test_a_code_taken_in_another_organization_on_the_shared_host_is_taken_too(
        owner_api, outsider_api, outsider, app):
    created(owner_api, app, code="summer")
    theirs = AppFactory(organization=outsider.organization)
    assert create(outsider_api, theirs, code="summer").status_code == 409


def test_codes_are_unique_per_link_domain(owner_api, owner, app):
    LinkDomain.objects.create(organization=owner.organization, host="go.example.com")
    LinkDomain.objects.create(organization=owner.organization, host="get.example.com")
    created(owner_api, app, code="summer")
    created(owner_api, app, code="summer", domain="go.example.com")
    created(owner_api, app, code="summer", domain="get.example.com")
    assert create(owner_api, app, code="summer", domain="go.example.com").status_code == 409
    assert Link.objects.filter(code="summer").count() == 3


def test_a_generated_code_that_is_taken_is_drawn_again(owner_api, app, monkeypatch):
    from links import codes

    created(owner_api, app, code="taken77")
    draws = iter(["taken77", "taken77", "fresh77"])
    monkeypatch.setattr(codes, "code_generate", lambda: next(draws))
    assert created(owner_api, app)["code"] == "fresh77"
    assert Link.objects.count() == 2


def test_codes_differ_by_case(owner_api, app):
    created(owner_api, app, code="Summer")
    assert created(owner_api, app, code="summer")["code"] == "summer"


def test_another_organizations_domain_cannot_be_used(owner_api, outsider, app):
    LinkDomain.objects.create(organization=outsider.organization, host="go.theirs.example")
    response = create(owner_api, app, domain="go.theirs.example")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "domain": ["No link domain with this host in your organization."]}


# --- List --------------------------------------------------------------------------------------

def test_list_shows_the_apps_links_newest_first(owner_api, owner, app):
    other_app = AppFactory(organization=owner.organization)
    first = created(owner_api, app, code="first")
    second = created(owner_api, app, code="second")
    created(owner_api, other_app, code="elsewhere")
    response = owner_api.get(LINKS, {"app_id": str(app.id)})
    assert response.status_code == 200
    data = response.json()["data"]
    assert [link["id"] for link in data["links"]] == [second["id"], first["id"]]
    assert data["links"][0]["short_url"] == "http://testserver/l/second"
    assert data["next_cursor"] is None


def test_list_pages_by_cursor(owner_api, app):
    ids = [created(owner_api, app, code=f"code{n}")["id"] for n in range(5)]
    seen, cursor = [], None
    for _ in range(3):
        query = {"app_id": str(app.id), "limit": 2, **({"cursor": cursor} if cursor else {})}
        data = owner_api.get(LINKS, query).json()["data"]
        seen += [link["id"] for link in data["links"]]
        cursor = data["next_cursor"]
    assert seen == list(reversed(ids))
    assert cursor is None


def test_links_created_in_the_same_instant_are_all_paged(owner_api, app):
    ids = [created(owner_api, app, code=f"code{n}")["id"] for n in range(4)]
    Link.objects.update(created_at=timezone.now())
    seen, cursor = [], None
    while True:
        query = {"app_id": str(app.id), "limit": 1, **({"cursor": cursor} if cursor else {})}
        data = owner_api.get(LINKS, query).json()["data"]
        seen += [link["id"] for link in data["links"]]
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == 4


def test_list_needs_the_app_id(owner_api):
    response = owner_api.get(LINKS)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"app_id": ["This parameter is required."]}


@pytest.mark.parametrize("query,field", [
    ({"app_id": "nope"}, "app_id"), ({"limit": "0"}, "limit"), ({"limit": "501"}, "limit"),
    ({"limit": "ten"}, "limit"), ({"cursor": "garbage"}, "cursor"),
    ({"cursor": "W10"}, "cursor"), ({"cursor": "é"}, "cursor")])
def test_bad_list_parameters_are_refused(owner_api, app, query, field):
    response = owner_api.get(LINKS, {"app_id": str(app.id), **query})
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_list_of_another_organizations_app_is_not_found(outsider_api, owner_api, app):
    created(owner_api, app)
    response = outsider_api.get(LINKS, {"app_id": str(app.id)})
    assert response.status_code == 404


# --- Read, update, delete ----------------------------------------------------------------------

def test_owner_reads_a_link(owner_api, app):
    link = created(owner_api, app, code="promo")
    response = owner_api.get(f"{LINKS}/{link['id']}")
    assert response.status_code == 200
    assert response.json()["data"]["link"] == link


def test_another_organizations_link_is_not_found_for_every_method(owner_api, outsider_api, app):
    link = created(owner_api, app, code="promo")
    url = f"{LINKS}/{link['id']}"
    assert outsider_api.get(url).status_code == 404
    assert outsider_api.put(url, {"name": "mine"}, format="json").status_code == 404
    assert outsider_api.delete(url).status_code == 404
    assert outsider_api.get(f"{url}/qr").status_code == 404
    assert outsider_api.get(f"{url}/report", {"start_date": "2025-01-01",
                                             "end_date": "2025-01-02"}).status_code == 404
    assert Link.objects.get(id=link["id"]).name == ""


def test_an_unknown_link_is_not_found(owner_api):
    response = owner_api.get(f"{LINKS}/0190a000-0000-7000-8000-000000000000")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Link not found."


def test_put_changes_only_the_fields_sent(owner_api, app):
    link = created(owner_api, app, code="promo", campaign_id="summer", adset="s1")
    response = owner_api.put(f"{LINKS}/{link['id']}", {
        "campaign_id": "autumn", "params": {"a": "b"}, "active": False,
        "web_url": "https://example.com/autumn"}, format="json")
    assert response.status_code == 200, response.json()
    updated = response.json()["data"]["link"]
    assert (updated["campaign_id"], updated["adset"], updated["active"]) == ("autumn", "s1", False)
    assert updated["params"] == {"a": "b"} and updated["web_url"] == "https://example.com/autumn"
    assert updated["updated_at"] >= link["updated_at"]
    stored = Link.objects.get(id=link["id"])
    assert (stored.campaign_id, stored.adset, stored.active) == ("autumn", "s1", False)


def test_put_clears_a_destination_and_the_expiry_with_null(owner_api, app):
    expires = (timezone.now() + timedelta(days=1)).isoformat()
    link = created(owner_api, app, ios_url="https://example.com/", expires_at=expires)
    updated = owner_api.put(f"{LINKS}/{link['id']}", {"ios_url": None, "expires_at": None},
                            format="json").json()["data"]["link"]
    assert updated["ios_url"] is None and updated["expires_at"] is None
    assert Link.objects.get(id=link["id"]).ios_url is None


@pytest.mark.parametrize("body,field", [
    ({"app_id": "0190a000-0000-7000-8000-000000000000"}, "app_id"),
    ({"code": "newcode"}, "code"),
    ({"domain": "go.example.com"}, "domain"),
    ({"media_source": ""}, "media_source"),
    ({"ios_url": "javascript:alert(1)"}, "ios_url"),
    ({"params": {"k": 1}}, "params"),
    ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
    ({"unknown": 1}, "unknown"),
])
def test_put_refuses_bad_and_unchangeable_fields(owner_api, app, body, field):
    link = created(owner_api, app, code="promo")
    response = owner_api.put(f"{LINKS}/{link['id']}", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["details"]
    stored = Link.objects.get(id=link["id"])
    assert stored.code == "promo" and stored.media_source == "instagram"


def test_owner_deletes_a_link(owner_api, app):
    link = created(owner_api, app)
    response = owner_api.delete(f"{LINKS}/{link['id']}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not Link.objects.exists()
    assert owner_api.get(f"{LINKS}/{link['id']}").status_code == 404


def test_a_deleted_links_code_can_be_chosen_again(owner_api, app):
    link = created(owner_api, app, code="promo")
    owner_api.delete(f"{LINKS}/{link['id']}")
    assert created(owner_api, app, code="promo")["code"] == "promo"


@pytest.mark.redis
def test_following_sees_a_change_at_once(owner_api, app, live_local_caches):
    from links.lookup import link_target

    link = created(owner_api, app, code="promo", web_url="https://example.com/a")
    assert link_target(domain_id=None, code="promo").web_url == "https://example.com/a"
    owner_api.put(f"{LINKS}/{link['id']}", {"web_url": "https://example.com/b", "active": False},
                  format="json")
    target = link_target(domain_id=None, code="promo")
    assert (target.web_url, target.active) == ("https://example.com/b", False)
    owner_api.delete(f"{LINKS}/{link['id']}")
    assert link_target(domain_id=None, code="promo") is None


def test_every_links_endpoint_is_in_the_schema(api):
    import json

    schema = json.loads(api.get("/api/v1/schema/",
                                HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/links"])
    assert {"get", "put", "delete"} <= set(paths["/api/v1/links/{link_id}"])
    assert "get" in paths["/api/v1/links/{link_id}/qr"]
    assert "get" in paths["/api/v1/links/{link_id}/report"]
    assert {"get", "post"} <= set(paths["/api/v1/link-domains"])
    assert "delete" in paths["/api/v1/link-domains/{domain_id}"]
    created_schema = paths["/api/v1/links"]["post"]["responses"]
    assert {"201", "400", "404", "409"} <= set(created_schema)
    qr_content = paths["/api/v1/links/{link_id}/qr"]["get"]["responses"]["200"]["content"]
    assert set(qr_content) == {"image/svg+xml", "image/png"}
    report_params = {p["name"] for p in paths["/api/v1/links/{link_id}/report"]["get"]
                     ["parameters"]}
    assert {"start_date", "end_date"} <= report_params
    assert "short_url" in schema["components"]["schemas"]["LinkOutput"]["properties"]
