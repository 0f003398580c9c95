"""The links admin: operators see links and link domains, can switch a link off (dead on the
next visit), and cannot remove a domain that links still use."""

import pytest
from django.test import Client
from django.urls import reverse

from links.models import Link, LinkDomain
from tests.admin_browser import operator_logged_in
from tests.tracking.helpers import ANDROID_BROWSER

pytestmark = pytest.mark.django_db


@pytest.fixture
def domain(owner):
    return LinkDomain.objects.create(organization=owner.organization, host="go.example.com")


@pytest.fixture
def link(app, domain):
    return Link.objects.create(app=app, domain=domain, code="promo", media_source="instagram")


def test_lists_and_pages_open_with_filters(operator_client, link, domain):
    for name, obj in (("link", link), ("linkdomain", domain)):
        listing = operator_client.get(reverse(f"admin:links_{name}_changelist"))
        assert listing.status_code == 200
        assert operator_client.get(reverse(f"admin:links_{name}_change",
                                           args=[obj.pk])).status_code == 200
    filtered = operator_client.get(reverse("admin:links_link_changelist"), {"active__exact": "1"})
    assert filtered.status_code == 200 and "promo" in filtered.content.decode()


def test_an_operator_switches_a_link_off_and_nothing_else(operator_client, link):
    url = reverse("admin:links_link_change", args=[link.pk])
    response = operator_client.post(url, {"code": "changed", "ios_url": "javascript:x"})
    assert response.status_code == 302
    link.refresh_from_db()
    assert link.active is False and link.code == "promo" and link.ios_url is None


def test_links_and_domains_are_not_added_here(operator_client):
    for name in ("link", "linkdomain"):
        assert operator_client.get(reverse(f"admin:links_{name}_add")).status_code == 403


def test_a_domain_links_use_cannot_be_deleted_here(operator_client, link, domain):
    url = reverse("admin:links_linkdomain_delete", args=[domain.pk])
    assert operator_client.post(url, {"post": "yes"}).status_code == 403
    assert LinkDomain.objects.filter(pk=domain.pk).exists()
    Link.objects.all().delete()
    assert operator_client.post(url, {"post": "yes"}).status_code == 302
    assert not LinkDomain.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_link_switched_off_or_deleted_in_the_admin_is_dead_on_the_next_visit(
        request, settings, app):
    """Real form posts that commit; with Redis, this process keeps the links it follows."""
    if settings.REDIS_URL:
        request.getfixturevalue("live_local_caches")
    operator = operator_logged_in()
    visitor = Client()
    first = Link.objects.create(app=app, code="first", media_source="instagram")
    second = Link.objects.create(app=app, code="second", media_source="instagram")
    for code in ("first", "second"):
        assert visit(visitor, code).status_code == 302  # now cached
    operator.change(reverse("admin:links_link_change", args=[first.pk]), active=None)
    assert visit(visitor, "first").status_code == 404
    operator.delete(reverse("admin:links_link_delete", args=[second.pk]))
    assert visit(visitor, "second").status_code == 404
    assert list(Link.objects.values_list("code", "active")) == [("first", False)]


def visit(client, code: str):
    return client.get(f"/l/{code}", HTTP_USER_AGENT=ANDROID_BROWSER, REMOTE_ADDR="81.2.69.142")
