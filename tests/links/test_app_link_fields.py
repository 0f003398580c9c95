"""The app fields links need (docs/links.md, "Association files"): Apple team id, Android signing
fingerprints and URL scheme, set and changed through the apps API and the console's app form."""

import pytest
from django.urls import reverse

from apps_registry.models import App

pytestmark = pytest.mark.django_db

PRINT = ":".join(["AB"] * 32)


def create(owner_api, **fields):
    body = {"name": "Shop", "platform": "ios", "bundle_id": "com.example.shop", **fields}
    return owner_api.post("/api/v1/apps", body, format="json")


def test_an_app_is_created_with_its_link_fields_normalized(owner_api):
    response = create(owner_api, apple_team_id="abcde12345", url_scheme="MyApp://",
                      android_sha256_fingerprints=[PRINT.lower(), "cd" * 32])
    assert response.status_code == 201, response.json()
    app = App.objects.get()
    assert app.apple_team_id == "ABCDE12345"
    assert app.url_scheme == "myapp"
    assert app.android_sha256_fingerprints == [PRINT, ":".join(["CD"] * 32)]
    body = response.json()
    shown = body.get("data", body)["app"]
    assert (shown["apple_team_id"], shown["url_scheme"]) == ("ABCDE12345", "myapp")
    assert shown["android_sha256_fingerprints"] == app.android_sha256_fingerprints


def test_the_link_fields_can_be_changed_and_cleared(owner_api, app):
    url = f"/api/v1/apps/{app.id}"
    response = owner_api.put(url, {"apple_team_id": "ZYXWV98765", "url_scheme": "shop",
                                   "android_sha256_fingerprints": [PRINT]}, format="json")
    assert response.status_code == 200, response.json()
    app.refresh_from_db()
    assert (app.apple_team_id, app.url_scheme, app.android_sha256_fingerprints) == (
        "ZYXWV98765", "shop", [PRINT])
    response = owner_api.put(url, {"apple_team_id": None, "url_scheme": None,
                                   "android_sha256_fingerprints": []}, format="json")
    assert response.status_code == 200
    app.refresh_from_db()
    assert (app.apple_team_id, app.url_scheme, app.android_sha256_fingerprints) == (
        None, None, [])


@pytest.mark.parametrize("field,value,message", [
    ("apple_team_id", "ABC", "Must be the 10-character Apple team id"),
    ("apple_team_id", "ABCDE-1234", "Must be the 10-character Apple team id"),
    ("android_sha256_fingerprints", ["AB:CD"], "Item 1: must be a SHA-256 certificate"),
    ("android_sha256_fingerprints", "AB:CD", "Must be a JSON array."),
    ("android_sha256_fingerprints", [PRINT] * 11, "At most 10 fingerprints"),
    ("url_scheme", "https", "Cannot be https"),
    ("url_scheme", "javascript:", "Cannot be javascript"),
    ("url_scheme", "1app", "Must be a URL scheme"),
    ("url_scheme", "my app", "Must be a URL scheme"),
])
def test_bad_link_fields_are_refused_with_the_envelope(owner_api, field, value, message):
    response = create(owner_api, **{field: value})
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False
    assert message in " ".join(map(str, body["error"]["details"][field]))
    assert not App.objects.exists()


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_the_console_app_form_sets_the_link_fields(console, app):
    url = reverse("console:app-edit", args=[app.id])
    assert 'name="android_sha256_fingerprints"' in console.get(url).content.decode()
    response = console.post(url, {"name": app.name, "apple_team_id": "abcde12345",
                                  "url_scheme": "shop",
                                  "android_sha256_fingerprints": f"{PRINT}\n{'cd' * 32}"})
    assert response.status_code == 302
    app.refresh_from_db()
    assert app.apple_team_id == "ABCDE12345" and app.url_scheme == "shop"
    assert app.android_sha256_fingerprints == [PRINT, ":".join(["CD"] * 32)]
    page = console.get(url).content.decode()
    assert f"{PRINT}\n{':'.join(['CD'] * 32)}</textarea>" in page


def test_the_console_shows_a_bad_fingerprint_beside_its_field(console, app):
    url = reverse("console:app-edit", args=[app.id])
    response = console.post(url, {"name": app.name, "android_sha256_fingerprints": "nope"})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="err_android_sha256_fingerprints"' in page and "Item 1" in page
    assert ">nope</textarea>" in page
