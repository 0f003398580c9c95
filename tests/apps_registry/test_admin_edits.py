"""An operator's edit of a key or an app in the Django admin applies on the very next SDK
request, click or link visit, as the API's edits do: logged in through the login form, the
change form opened, a field changed and saved (or a row deleted through the delete page or the
"delete selected" action), all as real form posts that commit. With Redis each process keeps
its copies (live local caches); without it the shared cache still holds keys for five minutes.
See docs/decisions.md, "Cache invalidation follows the model".
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from rest_framework.test import APIClient

from accounts.models import Organization, User
from apps_registry.models import ApiKey
from tests.admin_browser import AdminBrowser, operator_logged_in
from tests.factories import issue_key
from tests.links.visitors import CRAWLERS, make_link
from tests.processes import service_env, web
from tests.tracking.helpers import (
    ANDROID_BROWSER,
    click_through,
    install_body,
    one_rate_window,  # noqa: F401 - a fixture used below
)

pytestmark = pytest.mark.django_db(transaction=True)

NEW_STORE_URL = "https://play.google.com/store/apps/details?id=com.example.moved"


@pytest.fixture
def caches_as_in_production(request, settings):
    """Each process keeps what it reads, as in production (with Redis); the shared cache
    keeps keys either way."""
    if settings.REDIS_URL:
        request.getfixturevalue("live_local_caches")


@pytest.fixture
def operator(db):
    return operator_logged_in()


@pytest.fixture
def sdk(sdk_key, caches_as_in_production):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


@pytest.fixture
def key(sdk_key) -> ApiKey:
    return ApiKey.objects.get(id=sdk_key.split("_")[1])


def key_page(key: ApiKey) -> str:
    return f"/admin/apps_registry/apikey/{key.pk}/change/"


def install(sdk, app, device: str = "gaid-1"):
    return sdk.post("/api/v1/installs", install_body(app, device_id=device), format="json")


def refused(response, status: int, message: str) -> bool:
    error = response.json()["error"]
    return response.status_code == status and message in error["message"]


def test_a_key_expired_in_the_admin_is_refused_on_the_next_sdk_request(operator, sdk, app, key):
    assert install(sdk, app).status_code == 201  # the key is now cached
    operator.change(key_page(key), expires_at_0="2020-01-01", expires_at_1="00:00:00")
    assert refused(install(sdk, app, "gaid-2"), 401, "expired")
    assert ApiKey.objects.get(pk=key.pk).expires_at.year == 2020


def test_a_key_revoked_with_the_admin_action_is_refused_on_the_next_sdk_request(
        operator, sdk, app, key):
    assert install(sdk, app).status_code == 201
    operator.action("/admin/apps_registry/apikey/", "revoke", [key.pk])
    assert refused(install(sdk, app, "gaid-2"), 401, "revoked")
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None


def test_a_permission_removed_in_the_admin_is_refused_on_the_next_sdk_request(
        operator, sdk, app, key):
    assert install(sdk, app).status_code == 201
    operator.change(key_page(key), permissions='["read"]')
    response = install(sdk, app, "gaid-2")
    assert refused(response, 403, "write permission")
    assert response.json()["error"]["code"] == "FORBIDDEN"


def test_a_rate_limit_lowered_in_the_admin_counts_from_the_next_sdk_request(
        operator, app, caches_as_in_production, one_rate_window):  # noqa: F811
    sdk = APIClient()
    sdk.credentials(HTTP_X_API_KEY=issue_key(app, rate_limit=5))
    key = ApiKey.objects.get()
    assert install(sdk, app).status_code == 201  # 1 of 5 in this second
    operator.change(key_page(key), rate_limit="1")
    response = install(sdk, app, "gaid-2")  # 2 of 5 before the edit, 2 of 1 after it
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "RATE_LIMITED"


def test_a_key_deleted_on_its_delete_page_is_refused_on_the_next_sdk_request(
        operator, sdk, app, key):
    assert install(sdk, app).status_code == 201
    operator.delete(f"/admin/apps_registry/apikey/{key.pk}/delete/")
    assert refused(install(sdk, app, "gaid-2"), 401, "")
    assert not ApiKey.objects.exists()


def test_keys_deleted_with_delete_selected_are_refused_on_the_next_sdk_request(
        operator, sdk, app, key):
    other = APIClient()
    other.credentials(HTTP_X_API_KEY=issue_key(app))
    assert install(sdk, app).status_code == 201
    assert install(other, app, "gaid-2").status_code == 201
    operator.delete_selected("/admin/apps_registry/apikey/",
                             list(ApiKey.objects.values_list("pk", flat=True)))
    assert refused(install(sdk, app, "gaid-3"), 401, "")
    assert refused(install(other, app, "gaid-4"), 401, "")


def test_a_store_url_changed_in_the_admin_is_where_the_next_click_and_link_visit_go(
        operator, api, app, caches_as_in_production):
    make_link(app, code="summer")
    assert click_through(api, app)["Location"].startswith(app.play_store_url)
    assert link_visit(api, "summer")["Location"].startswith(app.play_store_url)
    operator.change(f"/admin/apps_registry/app/{app.pk}/change/", play_store_url=NEW_STORE_URL)
    assert click_through(api, app)["Location"].startswith(NEW_STORE_URL)
    assert link_visit(api, "summer")["Location"].startswith(NEW_STORE_URL)


def test_an_app_renamed_in_the_admin_is_named_on_the_next_link_preview(
        operator, api, app, caches_as_in_production):
    make_link(app, code="summer")
    crawler = CRAWLERS["facebookexternalhit"]
    assert app.name in link_visit(api, "summer", user_agent=crawler).content.decode()
    operator.change(f"/admin/apps_registry/app/{app.pk}/change/", name="Renamed Shop")
    assert "Renamed Shop" in link_visit(api, "summer", user_agent=crawler).content.decode()


def test_apps_deleted_with_delete_selected_stop_their_keys_clicks_and_links_at_once(
        operator, api, sdk, app):
    # Read-only requests: the admin refuses to delete an app whose installs or clicks it
    # would take along, so this app has none.
    make_link(app, code="summer")
    crawler = CRAWLERS["facebookexternalhit"]
    assert schema_read(sdk, app).status_code == 404  # the key works; no schema yet
    assert click_preview(api, app)["Location"].startswith(app.play_store_url)
    assert link_visit(api, "summer", user_agent=crawler).status_code == 200
    operator.delete_selected("/admin/apps_registry/app/", [app.pk])
    assert refused(schema_read(sdk, app), 401, "")
    assert not click_preview(api, app)["Location"].startswith(app.play_store_url)
    assert link_visit(api, "summer", user_agent=crawler).status_code == 404


def test_an_organization_deleted_in_the_admin_takes_its_keys_with_it_at_once(
        operator, sdk, app):
    assert schema_read(sdk, app).status_code == 404
    operator.delete(f"/admin/accounts/organization/{app.organization_id}/delete/")
    assert refused(schema_read(sdk, app), 401, "")
    assert not Organization.objects.filter(pk=app.organization_id).exists()


@pytest.mark.postgres
@pytest.mark.redis
def test_a_key_expired_in_the_admin_is_refused_by_every_process_of_the_running_service(
        app, sdk_key, key, tmp_path, settings):
    """gunicorn as the README starts it (two processes): both keep the key after reading it;
    the operator expires it through that same server's admin, over HTTP; the next SDK
    requests, whichever process takes them, are refused."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]  # the server's
    User.objects.create_superuser("ops@example.com", "operator-password")
    env = service_env(ALLOWED_HOSTS="127.0.0.1,localhost", GUNICORN_WORKERS="2")
    with web(env=env, tmp_path=tmp_path) as (url, server):
        def read(_=None) -> int:
            return requests.get(f"{url}/api/v1/apps/{app.id}/conversion-schema",
                                headers={"X-API-Key": sdk_key}, timeout=30).status_code

        with ThreadPoolExecutor(8) as threads:  # at once, so both processes answer some
            assert set(threads.map(read, range(32))) == {404}  # the key works, no schema
            operator = AdminBrowser(server=url)
            operator.log_in("ops@example.com", "operator-password")
            operator.change(key_page(key), expires_at_0="2020-01-01", expires_at_1="00:00:00")
            assert list(threads.map(read, range(32))) == [401] * 32, server.output()[-3000:]


def schema_read(sdk, app):
    """The SDK's one read: it writes nothing (404 while the app has no schema)."""
    return sdk.get(f"/api/v1/apps/{app.id}/conversion-schema")


def click_preview(client, app):
    """A HEAD of the click URL redirects as a click would, and records nothing."""
    return client.head("/api/v1/clicks", {"app_id": str(app.id)},
                       HTTP_USER_AGENT=ANDROID_BROWSER, REMOTE_ADDR="81.2.69.142")


def link_visit(client, code: str, *, user_agent: str = ANDROID_BROWSER):
    return client.get(f"/l/{code}", HTTP_USER_AGENT=user_agent, REMOTE_ADDR="81.2.69.142")
