"""A request whose Host is an organization's link domain serves that organization's links at
/{code}, its association files and the fallback page, and nothing else of the service."""

import pytest

from links.models import LinkDomain
from tests.factories import AppFactory
from tests.links.visitors import ANDROID_CHROME, CRAWLERS, IPHONE_SAFARI, make_link
from tracking.models import Click

pytestmark = pytest.mark.django_db

HOST = "go.example.com"


@pytest.fixture
def domain(app):
    return LinkDomain.objects.create(organization=app.organization, host=HOST)


def visit(client, path, *, host=HOST, user_agent=ANDROID_CHROME, method="get"):
    return getattr(client, method)(path, HTTP_HOST=host, HTTP_USER_AGENT=user_agent,
                                   REMOTE_ADDR="81.2.69.142")


def test_a_link_on_its_domain_is_followed_at_the_root(client, app, domain):
    link = make_link(app, domain=domain)
    response = visit(client, "/summer")
    assert response.status_code == 302
    assert response["Location"].startswith(app.play_store_url + "&referrer=")
    assert Click.objects.get().link_id == link.id


def test_the_host_may_carry_a_port_and_any_case(client, app, domain):
    make_link(app, domain=domain)
    assert visit(client, "/summer", host="GO.Example.com:443").status_code == 302


def test_a_domain_serves_only_its_own_links(client, app, domain):
    make_link(app, code="ours-on-own-host")  # the service's own host, not this domain
    other_org_app = AppFactory()
    other_domain = LinkDomain.objects.create(organization=other_org_app.organization,
                                             host="links.other.example")
    make_link(other_org_app, code="theirs", domain=other_domain)
    for path in ("/ours-on-own-host", "/theirs"):
        response = visit(client, path)
        assert response.status_code == 404
        assert "This link is no longer active" in response.content.decode()
    assert not Click.objects.exists()


def test_a_link_placed_on_another_organizations_domain_is_not_served(client, app, domain):
    stranger = AppFactory()
    make_link(stranger, code="planted", domain=domain)
    assert visit(client, "/planted").status_code == 404
    assert not Click.objects.exists()


def test_the_services_path_shape_is_not_a_link_on_a_link_domain(client, app, domain):
    make_link(app, domain=domain)
    assert visit(client, "/l/summer").status_code == 404
    assert not Click.objects.exists()


def test_the_console_api_and_admin_are_not_served_on_a_link_domain(client, app, domain):
    for path in ("/", "/console/", "/admin/", "/healthz"):
        response = visit(client, path)
        assert response.status_code == 404, path
        assert "This link is no longer active" in response.content.decode()
    # Under /api/ the envelope middleware words the same 404 as the API's own.
    api = visit(client, "/api/v1/apps")
    assert api.status_code == 404 and api.json()["error"]["code"] == "NOT_FOUND"
    assert visit(client, "/summer", method="post").status_code == 405


def test_crawlers_and_head_on_a_link_domain_are_not_counted(client, app, domain):
    make_link(app, domain=domain, og_title="Hello")
    body = visit(client, "/summer", user_agent=CRAWLERS["WhatsApp"]).content.decode()
    assert f'<meta property="og:url" content="https://{HOST}/summer">' in body
    assert visit(client, "/summer", method="head").status_code == 302
    assert not Click.objects.exists()


def test_a_host_in_allowed_hosts_is_never_a_link_domain(client, app, settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "service.example.com"]
    LinkDomain.objects.create(organization=app.organization, host="service.example.com")
    make_link(app)
    assert visit(client, "/l/summer", host="service.example.com").status_code == 302
    assert visit(client, "/healthz", host="service.example.com").status_code == 200


def test_unregistered_unknown_hosts_keep_the_services_host_check(client):
    assert visit(client, "/console/", host="unknown.example").status_code == 400


def test_a_domain_added_later_is_served_at_once(client, app):
    assert visit(client, "/summer").status_code == 400  # not a link domain: an unknown host
    domain = LinkDomain.objects.create(organization=app.organization, host=HOST)
    make_link(app, domain=domain)
    assert visit(client, "/summer", user_agent=IPHONE_SAFARI)["Location"] == app.app_store_url


@pytest.mark.redis
def test_cached_links_follow_every_save_and_delete_in_every_process(
        client, app, domain, live_local_caches):
    link = make_link(app, domain=domain, ios_url="https://one.example.com/")
    assert visit(client, "/summer", user_agent=IPHONE_SAFARI)["Location"] == (
        "https://one.example.com/")
    link.ios_url = "https://two.example.com/"
    link.save()
    assert visit(client, "/summer", user_agent=IPHONE_SAFARI)["Location"] == (
        "https://two.example.com/")
    # The code is renamed and taken by another link: the old entry is never served.
    link.code = "renamed"
    link.save()
    make_link(app, domain=domain, ios_url="https://three.example.com/")
    assert visit(client, "/summer", user_agent=IPHONE_SAFARI)["Location"] == (
        "https://three.example.com/")
    assert visit(client, "/renamed", user_agent=IPHONE_SAFARI)["Location"] == (
        "https://two.example.com/")
    link.delete()
    assert visit(client, "/renamed").status_code == 404


def test_the_link_pages_stylesheet_is_served_on_a_link_domain(client, app, domain):
    response = visit(client, "/static/links/page.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert visit(client, "/static/no-such-file.css").status_code in (400, 404)
