"""A token's use from a further address is an entry; its first address and repeats are not
(docs/teams.md, "Audit log")."""

import pytest

from audit.models import Entry, TokenAddress
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


def test_a_token_used_from_a_second_address_is_recorded_once(owner, app):
    client = client_for(owner)
    for address in ("192.0.2.1", "192.0.2.1", "198.51.100.9", "198.51.100.9"):
        assert client.get("/api/v1/apps", REMOTE_ADDR=address).status_code == 200

    entry = Entry.objects.get()
    assert (entry.action, entry.actor_id, entry.ip) == (
        "auth.token_new_ip", owner.id, "198.51.100.9")
    assert entry.changes == {"credential": "jwt", "earlier_ips": ["192.0.2.1"]}
    assert TokenAddress.objects.count() == 2


def test_the_token_itself_is_never_stored(owner):
    client = client_for(owner)
    client.get("/api/v1/apps", REMOTE_ADDR="192.0.2.1")
    token = client._credentials["HTTP_AUTHORIZATION"].removeprefix("Bearer ")

    digest = TokenAddress.objects.get().token_digest
    assert len(digest) == 64 and token not in digest


def test_each_token_has_addresses_of_its_own(owner):
    client_for(owner).get("/api/v1/apps", REMOTE_ADDR="192.0.2.1")
    client_for(owner).get("/api/v1/apps", REMOTE_ADDR="198.51.100.9")

    assert not Entry.objects.exists()


def test_a_refused_call_still_counts_as_a_use(owner):
    from tests.factories import UserFactory

    viewer = UserFactory(organization=owner.organization, role="viewer")
    client = client_for(viewer)
    client.get("/api/v1/apps", REMOTE_ADDR="192.0.2.1")
    client.get("/api/v1/privacy/requests", REMOTE_ADDR="198.51.100.9")

    assert Entry.objects.get().action == "auth.token_new_ip"


def test_an_unreachable_cache_costs_queries_not_answers(owner):
    from django.test import override_settings

    unreachable = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}}}
    client = client_for(owner)
    with override_settings(CACHES=unreachable):
        for address in ("192.0.2.1", "192.0.2.1", "198.51.100.9"):
            assert client.get("/api/v1/apps", REMOTE_ADDR=address).status_code == 200

    assert Entry.objects.get().action == "auth.token_new_ip"
