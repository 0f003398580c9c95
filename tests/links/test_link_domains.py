"""Link domains: an organization registers its own hosts for links; a host belongs to one
organization across the service; a domain that links still use cannot be deleted."""

import pytest

from links.models import Link, LinkDomain
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

DOMAINS = "/api/v1/link-domains"


def add(api, host):
    return api.post(DOMAINS, {"host": host}, format="json")


def test_owner_registers_a_domain_stored_lower_case(owner_api, owner):
    response = add(owner_api, "Go.Example.COM.")
    assert response.status_code == 201, response.json()
    domain = response.json()["data"]["link_domain"]
    assert domain["host"] == "go.example.com" and domain["link_count"] == 0
    stored = LinkDomain.objects.get(id=domain["id"])
    assert stored.host == "go.example.com"
    assert stored.organization_id == owner.organization_id


@pytest.mark.parametrize("host", [
    "https://go.example.com", "go.example.com:8443", "go.example.com/path", "localhost",
    "192.168.0.1", "not a host", "", "-bad.example.com", "go..example.com", "x" * 250 + ".com",
    "exa_mple.com"])
def test_anything_but_a_bare_host_name_is_refused(owner_api, host):
    response = add(owner_api, host)
    assert response.status_code == 400, response.json()
    assert "host" in response.json()["error"]["details"]
    assert not LinkDomain.objects.exists()


@pytest.mark.parametrize("body,field", [({"host": 5}, "host"), ({}, "host"),
                                        ({"host": "go.example.com", "tls": True}, "tls")])
def test_a_bad_body_is_refused(owner_api, body, field):
    response = owner_api.post(DOMAINS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_a_host_registered_anywhere_is_a_conflict(owner_api, outsider_api):
    assert add(owner_api, "go.example.com").status_code == 201
    for api in (owner_api, outsider_api):
        response = add(api, "GO.example.com")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "CONFLICT"
        assert list(response.json()["error"]["details"]) == ["host"]
    assert LinkDomain.objects.count() == 1


def test_the_services_own_host_cannot_be_a_link_domain(owner_api, settings):
    settings.LINKS_BASE_URL = "https://attr.example.com"
    settings.ALLOWED_HOSTS = ["testserver.example.com", "api.attr.example.com"]
    for host in ("attr.example.com", "testserver.example.com", "api.attr.example.com"):
        response = owner_api.post(DOMAINS, {"host": host}, format="json",
                                  HTTP_HOST="testserver.example.com")
        assert response.status_code == 400, host
        assert "host" in response.json()["error"]["details"]
    assert not LinkDomain.objects.exists()


def test_list_shows_only_the_callers_domains_with_their_link_counts(
        owner_api, outsider_api, owner, app):
    add(owner_api, "go.example.com")
    add(owner_api, "a.example.com")
    add(outsider_api, "go.theirs.example")
    owner_api.post("/api/v1/links", {"app_id": str(app.id), "media_source": "x",
                                     "domain": "go.example.com"}, format="json")
    response = owner_api.get(DOMAINS)
    assert response.status_code == 200
    domains = response.json()["data"]["link_domains"]
    assert [(d["host"], d["link_count"]) for d in domains] == [
        ("a.example.com", 0), ("go.example.com", 1)]


def test_owner_deletes_an_unused_domain(owner_api):
    domain = add(owner_api, "go.example.com").json()["data"]["link_domain"]
    response = owner_api.delete(f"{DOMAINS}/{domain['id']}")
    assert response.status_code == 200
    assert response.json()["data"] == {"success": True}
    assert not LinkDomain.objects.exists()


def test_a_domain_links_still_use_is_not_deleted(owner_api, owner):
    domain = add(owner_api, "go.example.com").json()["data"]["link_domain"]
    app = AppFactory(organization=owner.organization)
    for code in ("one", "two"):
        owner_api.post("/api/v1/links", {"app_id": str(app.id), "media_source": "x",
                                         "code": code, "domain": "go.example.com"},
                       format="json")
    response = owner_api.delete(f"{DOMAINS}/{domain['id']}")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "CONFLICT", "message": "2 links use this domain; delete them first.",
        "details": {"link_count": 2}}
    assert LinkDomain.objects.count() == 1 and Link.objects.count() == 2


def test_another_organizations_domain_is_not_found(owner_api, outsider_api):
    domain = add(owner_api, "go.example.com").json()["data"]["link_domain"]
    response = outsider_api.delete(f"{DOMAINS}/{domain['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Link domain not found."
    assert LinkDomain.objects.count() == 1


def test_link_domains_need_a_login(api):
    assert api.get(DOMAINS).status_code == 401
    assert api.post(DOMAINS, {"host": "go.example.com"}, format="json").status_code == 401
