"""API key pages: the active keys listed without secrets, create through the API's serializer
and service with the full key shown once (after a redirect, no-store, never again on a reload),
revoke after a
confirmation; another organization's or another app's key is a 404."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from apps_registry import keys
from apps_registry.models import ApiKey
from apps_registry.services import api_key_create
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.factories import AppFactory
from tests.tracking.helpers import ANDROID_SDK, PUBLIC_IP, install_body

pytestmark = pytest.mark.django_db


def keys_url(app):
    return f"/console/apps/{app.id}/keys"


def new_url(app):
    return f"/console/apps/{app.id}/keys/new"


def revoke_url(app, key):
    return f"/console/apps/{app.id}/keys/{key.id}/revoke"


def create(console, app, **fields):
    """The POST's answer: a redirect to the page showing the key, or the refused form."""
    return console.post(new_url(app), {"name": "Android SDK", "permissions": ["write"],
                                       **fields})


def shown_key(html: str) -> str:
    return re.search(r'id="full-key" type="text" value="([^"]+)"', html).group(1)


def sdk_install_status(full_key: str, app) -> int:
    sdk = APIClient()
    sdk.credentials(HTTP_X_API_KEY=full_key)
    return sdk.post("/api/v1/installs", install_body(app), format="json",
                    HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP).status_code


def test_the_list_shows_active_keys_with_prefix_and_last_use_but_no_secret(console, app):
    used, _ = api_key_create(app=app, name="Used", permissions=["write", "read"], rate_limit=50)
    ApiKey.objects.filter(id=used.id).update(last_used_at=timezone.now())
    revoked, _ = api_key_create(app=app, name="Gone")
    ApiKey.objects.filter(id=revoked.id).update(revoked_at=timezone.now())
    response = console.get(keys_url(app))
    assert response.status_code == 200
    html = response.content.decode()
    assert used.key_prefix in html and "read, write" in html and ">50<" in html
    assert "Gone" not in html
    assert used.secret_hash not in html
    assert "never" not in html.split(used.key_prefix)[1].split("</td>")[4]


def test_an_app_without_keys_invites_to_create_one(console, app):
    html = console.get(keys_url(app)).content.decode()
    assert "No active keys." in html and new_url(app) in html


def test_creating_a_key_shows_the_full_key_once_with_a_copy_button(console, app):
    created = create(console, app, rate_limit="500",
                     expires_at=(timezone.now() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M"))
    key = ApiKey.objects.get()
    assert created.status_code == 302
    assert created["Location"] == f"/console/apps/{app.id}/keys/{key.id}/created"
    response = console.get(created["Location"])
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    full_key = shown_key(html)
    assert 'readonly' in html and 'data-copy="full-key"' in html
    assert "it will not be shown again" in html
    assert (key.name, key.permissions, key.rate_limit) == ("Android SDK", ["write"], 500)
    assert key.expires_at is not None
    key_id, secret = keys.key_parse(full_key)
    assert key_id == key.id and keys.secret_matches(secret, key.secret_hash)
    assert sdk_install_status(full_key, app) == 201


def test_the_full_key_is_kept_nowhere_in_plain_text(console, app):
    created = create(console, app)
    kept = str(dict(console.session))  # between the POST and the page that shows it
    full_key = shown_key(console.get(created["Location"]).content.decode())
    assert full_key not in kept
    assert full_key not in str(dict(console.session))
    assert full_key not in console.get(keys_url(app)).content.decode()


def test_reloading_the_page_shows_the_key_no_more(console, app):
    created = create(console, app)
    first = console.get(created["Location"]).content.decode()
    again = console.get(created["Location"])
    assert again.status_code == 200
    html = again.content.decode()
    assert shown_key(first) not in html
    assert "shown once and is not available again" in html
    assert ApiKey.objects.count() == 1


def test_the_form_starts_with_write_ticked(console, app):
    html = console.get(new_url(app)).content.decode()
    assert 'value="write" checked' in html
    assert 'value="read">' in html and 'value="admin">' in html


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"permissions": []}, "permissions", "This list may not be empty."),
    ({"rate_limit": "0"}, "rate_limit", "Ensure this value is greater than or equal to 1."),
    ({"rate_limit": "lots"}, "rate_limit", "Must be an integer."),
    ({"expires_at": "2001-01-01T00:00"}, "expires_at", "Must be in the future."),
    ({"expires_at": "soon"}, "expires_at", "Datetime has wrong format."),
    ({"name": "n" * 201}, "name", "Ensure this field has no more than 200 characters."),
])
def test_each_invalid_field_is_refused_beside_it(console, app, fields, field, message):
    response = create(console, app, **fields)
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split(f'id="err_{field}"')[1].split("</ul>")[0]
    assert message in errors
    assert not ApiKey.objects.exists()


def test_a_refused_form_keeps_what_was_typed_and_can_be_sent_again(console, app):
    refused = console.post(new_url(app), {"name": "Kept", "permissions": ["read"],
                                          "rate_limit": "0"})
    html = refused.content.decode()
    assert 'value="Kept"' in html and 'value="read" checked' in html
    fixed = console.post(new_url(app), {"name": "Kept", "permissions": ["read"],
                                        "rate_limit": "10"})
    assert fixed.status_code == 302
    assert ApiKey.objects.get().permissions == ["read"]


def test_the_revoke_page_says_what_happens_and_revokes_nothing(console, app):
    key, full_key = api_key_create(app=app, name="Old")
    response = console.get(revoke_url(app, key))
    assert response.status_code == 200
    assert "refused at once" in response.content.decode()
    assert ApiKey.objects.get().revoked_at is None


def test_revoking_a_key_refuses_the_sdk_using_it(console, app,
                                                 django_capture_on_commit_callbacks):
    key, full_key = api_key_create(app=app, name="Old")
    assert sdk_install_status(full_key, app) == 201  # and the key is cached now
    with django_capture_on_commit_callbacks(execute=True):
        response = console.post(revoke_url(app, key), follow=True)
    assert response.redirect_chain == [(keys_url(app), 302)]
    assert f"Revoked the key {key.key_prefix}" in response.content.decode()
    assert ApiKey.objects.get().revoked_at is not None
    assert sdk_install_status(full_key, app) == 401


def test_a_revoked_key_cannot_be_revoked_again(console, app):
    key, _ = api_key_create(app=app)
    console.post(revoke_url(app, key))
    assert console.get(revoke_url(app, key)).status_code == 404


def test_another_organizations_app_and_key_are_404(console, app, outsider_app):
    key, _ = api_key_create(app=outsider_app)
    assert console.get(keys_url(outsider_app)).status_code == 404
    assert console.get(new_url(outsider_app)).status_code == 404
    assert console.post(new_url(outsider_app), {"permissions": ["write"]}).status_code == 404
    assert console.get(revoke_url(outsider_app, key)).status_code == 404
    assert console.get(revoke_url(app, key)).status_code == 404
    assert console.post(revoke_url(app, key)).status_code == 404
    assert ApiKey.objects.get().revoked_at is None
    assert not ApiKey.objects.filter(app=outsider_app).exclude(id=key.id).exists()


def test_a_key_of_another_app_is_404_under_this_app(console, app, owner):
    sibling = AppFactory(organization=owner.organization)
    key, _ = api_key_create(app=sibling)
    assert console.get(revoke_url(app, key)).status_code == 404
    assert console.post(revoke_url(app, key)).status_code == 404
    assert ApiKey.objects.get().revoked_at is None
    assert console.get(revoke_url(sibling, key)).status_code == 200


def test_the_page_of_a_new_key_is_404_under_another_app(console, app, owner):
    sibling = AppFactory(organization=owner.organization)
    created = create(console, sibling)
    foreign = created["Location"].replace(str(sibling.id), str(app.id))
    assert console.get(foreign).status_code == 404
    assert shown_key(console.get(created["Location"]).content.decode())


def test_changes_need_the_csrf_token(owner, app):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    key, _ = api_key_create(app=app)
    assert browser.post(revoke_url(app, key)).status_code == 403
    assert browser.post(new_url(app), {"permissions": ["write"]}).status_code == 403
    assert ApiKey.objects.get().revoked_at is None


def test_hostile_key_names_are_shown_as_text(console, app):
    key, _ = api_key_create(app=app, name=XSS_CAMPAIGN)
    created = create(console, app, name=XSS_SOURCE)
    pages = [console.get(keys_url(app)), console.get(revoke_url(app, key)),
             console.get(created["Location"]),
             create(console, app, name=XSS_CAMPAIGN, rate_limit="0")]
    for page in pages:
        assert_shown_as_text(page.content.decode())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0].content.decode()


@pytest.fixture
def web_site(app):
    return AppFactory(organization=app.organization, platform="web", domain="shop.example",
                      package_name=None, play_store_url=None, app_store_url=None)


def test_a_web_key_is_created_with_its_origins_and_shows_the_snippet_as_text(console,
                                                                             web_site):
    form = console.get(new_url(web_site)).content.decode()
    assert 'value="web" checked' in form and 'name="allowed_origins"' in form
    created = console.post(new_url(web_site), {
        "name": "<b>site</b>", "kind": "web",
        "allowed_origins": "https://shop.example\r\nhttp://127.0.0.1:8080\r\n"})
    assert created.status_code == 302, created.content.decode()
    key = ApiKey.objects.get(app=web_site)
    assert key.kind == "web" and key.permissions == ["write"]
    assert key.allowed_origins == ["https://shop.example", "http://127.0.0.1:8080"]
    html = console.get(created["Location"]).content.decode()
    full_key = shown_key(html)
    assert (f'&lt;script src=&quot;http://testserver/sdk/web/v1.js&quot; '
            f'data-key=&quot;{full_key}&quot; async&gt;&lt;/script&gt;') in html
    assert 'data-copy="web-snippet"' in html and "<b>site</b>" not in html
    listed = console.get(keys_url(web_site)).content.decode()
    assert "https://shop.example, http://127.0.0.1:8080" in listed


def test_a_web_key_with_a_bad_origin_is_refused_beside_the_field(console, web_site):
    response = console.post(new_url(web_site), {"kind": "web",
                                                "allowed_origins": "https://shop.example/x"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_allowed_origins"' in html and "no path" in html
    assert "https://shop.example/x" in html  # kept for correcting


def test_a_web_key_for_an_app_of_another_platform_is_refused(console, app):
    response = console.post(new_url(app), {"kind": "web",
                                           "allowed_origins": "https://shop.example"})
    assert response.status_code == 400 and 'id="err_kind"' in response.content.decode()
