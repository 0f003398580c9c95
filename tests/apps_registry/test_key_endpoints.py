"""API keys: create (full key once), list, revoke; the SDK authentication they drive."""

from datetime import timedelta

import pytest
import redis
from django.conf import settings as django_settings
from django.utils import timezone

from apps_registry import keys, selectors
from apps_registry.authentication import require_app, sdk_client_for_key
from apps_registry.models import ApiKey
from attribution_site import local_cache
from attribution_site.api.exceptions import Forbidden, Unauthorized
from tests.factories import AppFactory, issue_key
from tests.helpers import served_from_memory

pytestmark = pytest.mark.django_db


def keys_url(app):
    return f"/api/v1/apps/{app.id}/keys"


def test_create_returns_full_key_once_and_stores_only_a_hash(owner_api, app):
    response = owner_api.post(keys_url(app), {"name": "ios sdk"}, format="json")
    assert response.status_code == 201
    key = response.json()["data"]["key"]
    assert key["permissions"] == ["write"]
    assert key["rate_limit"] == 100_000
    assert key["last_used_at"] is None and key["expires_at"] is None
    assert key["full_key"].startswith(f"ak_{key['id']}_")
    assert key["key_prefix"].endswith("…") and key["full_key"].startswith(key["key_prefix"][:-1])
    stored = ApiKey.objects.get(id=key["id"])
    secret = key["full_key"].split("_", 2)[2]
    assert secret not in stored.secret_hash
    assert stored.secret_hash == keys.secret_hash(secret)
    listed = owner_api.get(keys_url(app)).json()["data"]["keys"]
    assert [k["id"] for k in listed] == [key["id"]]
    assert "full_key" not in listed[0]
    assert "secret_hash" not in listed[0]


def test_key_secret_has_at_least_128_bits():
    generated = keys.key_generate()
    assert len(generated.secret) * 6 >= 128


@pytest.mark.parametrize("body,field", [
    ({"permissions": ["root"]}, "permissions"),
    ({"permissions": "write"}, "permissions"),
    ({"permissions": []}, "permissions"),
    ({"name": 7}, "name"),
    ({"rate_limit": 0}, "rate_limit"),
    ({"rate_limit": "10"}, "rate_limit"),
    ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
    ({"expires_at": "soon"}, "expires_at"),
])
def test_invalid_key_requests_are_rejected(owner_api, app, body, field):
    response = owner_api.post(keys_url(app), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert ApiKey.objects.count() == 0


def test_create_accepts_permissions_rate_limit_and_expiry(owner_api, app):
    expires = (timezone.now() + timedelta(days=30)).isoformat()
    response = owner_api.post(keys_url(app), {"permissions": ["read", "admin"],
                                              "rate_limit": 50, "expires_at": expires},
                              format="json")
    assert response.status_code == 201
    key = response.json()["data"]["key"]
    assert key["permissions"] == ["admin", "read"]
    assert key["rate_limit"] == 50
    assert key["expires_at"] is not None


def test_a_valid_key_authenticates_for_its_app(app, sdk_key):
    client = sdk_client_for_key(sdk_key)
    assert client.app_id == app.id
    require_app(client, app.id)
    stored = ApiKey.objects.get(app=app)
    assert stored.last_used_at is not None


def test_a_key_for_another_app_is_forbidden(app, sdk_key):
    other = AppFactory(organization=app.organization)
    with pytest.raises(Forbidden):
        require_app(sdk_client_for_key(sdk_key), other.id)


def test_a_read_only_key_cannot_write(app):
    full_key = issue_key(app, permissions=["read"])
    with pytest.raises(Forbidden):
        require_app(sdk_client_for_key(full_key), app.id)


@pytest.mark.parametrize("presented", [
    None, "", "garbage", "ak_zz_secret", "ak_0123456789abcdef_wrong-secret",
])
def test_malformed_or_unknown_keys_are_unauthorized(app, sdk_key, presented):
    with pytest.raises(Unauthorized):
        sdk_client_for_key(presented)


def test_a_wrong_secret_for_a_real_key_id_is_unauthorized(sdk_key):
    key_id = sdk_key.split("_")[1]
    with pytest.raises(Unauthorized):
        sdk_client_for_key(f"ak_{key_id}_not-the-secret")


def test_revoked_key_stops_working_at_once_even_when_cached(
        owner_api, app, sdk_key, django_capture_on_commit_callbacks):
    sdk_client_for_key(sdk_key)  # warms the shared cache
    key_id = sdk_key.split("_")[1]
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_api.delete(f"/api/v1/keys/{key_id}")
    assert response.status_code == 200
    assert response.json()["data"] == {"success": True}
    with pytest.raises(Unauthorized, match="revoked"):
        sdk_client_for_key(sdk_key)
    assert ApiKey.objects.get(id=key_id).revoked_at is not None
    assert owner_api.get(keys_url(app)).json()["data"]["keys"] == []
    assert owner_api.delete(f"/api/v1/keys/{key_id}").status_code == 404


def kept_in_this_process(sdk_key) -> str:
    """The key's id, once this process serves the key from its local copy."""
    key_id = sdk_key.split("_")[1]
    sdk_client_for_key(sdk_key)
    assert served_from_memory(lambda: selectors.api_key_record(key_id=key_id))
    return key_id


@pytest.mark.redis
def test_a_revocation_reaches_every_process_that_kept_the_key(
        owner_api, app, sdk_key, live_local_caches, django_capture_on_commit_callbacks):
    key_id = kept_in_this_process(sdk_key)
    other_processes = redis.Redis.from_url(django_settings.REDIS_URL).pubsub()
    other_processes.subscribe(local_cache.channel())
    assert other_processes.get_message(timeout=2)["type"] == "subscribe"
    with django_capture_on_commit_callbacks(execute=True):
        assert owner_api.delete(f"/api/v1/keys/{key_id}").status_code == 200
    with pytest.raises(Unauthorized, match="revoked"):
        sdk_client_for_key(sdk_key)
    message = other_processes.get_message(timeout=2)
    assert (message["type"], message["data"]) == ("message", f"api-keys:{key_id}".encode())
    other_processes.close()


@pytest.mark.redis
def test_a_deleted_apps_keys_stop_working_in_every_process(
        owner_api, app, sdk_key, live_local_caches, django_capture_on_commit_callbacks):
    kept_in_this_process(sdk_key)
    with django_capture_on_commit_callbacks(execute=True):
        assert owner_api.delete(f"/api/v1/apps/{app.id}").status_code == 200
    with pytest.raises(Unauthorized):
        sdk_client_for_key(sdk_key)


def test_expired_key_is_unauthorized(app):
    full_key = issue_key(app, expires_at=timezone.now() + timedelta(seconds=1))
    ApiKey.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(Unauthorized, match="expired"):
        sdk_client_for_key(full_key)


def test_deleting_the_app_invalidates_its_cached_keys(
        owner_api, app, sdk_key, django_capture_on_commit_callbacks):
    sdk_client_for_key(sdk_key)
    with django_capture_on_commit_callbacks(execute=True):
        owner_api.delete(f"/api/v1/apps/{app.id}")
    with pytest.raises(Unauthorized):
        sdk_client_for_key(sdk_key)


def test_another_organization_cannot_revoke_or_list_keys(outsider_api, app, sdk_key):
    key_id = sdk_key.split("_")[1]
    assert outsider_api.delete(f"/api/v1/keys/{key_id}").status_code == 404
    assert outsider_api.get(keys_url(app)).status_code == 404
    assert ApiKey.objects.get(id=key_id).revoked_at is None


def test_last_used_is_written_at_most_once_a_minute(app, sdk_key):
    sdk_client_for_key(sdk_key)
    first = ApiKey.objects.get(app=app).last_used_at
    sdk_client_for_key(sdk_key)
    assert ApiKey.objects.get(app=app).last_used_at == first
