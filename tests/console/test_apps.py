"""The apps pages: list, create with the API's platform rules beside the fields, edit the
updatable fields, delete after a confirmation; another organization's app is a 404 page."""

from __future__ import annotations

import pytest

from apps_registry.models import ApiKey, App
from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.factories import AppFactory, issue_key

pytestmark = pytest.mark.django_db


def test_the_home_page_lists_the_organizations_apps_only(console, app, outsider_app):
    html = console.get("/console/").content.decode()
    assert app.name in html
    assert outsider_app.name not in html


def test_a_new_organization_is_invited_to_create_its_first_app(console):
    assert "Create your first app" in console.get("/console/").content.decode()


def test_creating_an_app_opens_its_overview(console, owner):
    response = console.post("/console/apps/new", {
        "name": "Runner", "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "https://play.google.com/store/apps/details?id=com.acme.runner"})
    app = App.objects.get(organization=owner.organization, package_name="com.acme.runner")
    assert response.status_code == 302
    assert response["Location"] == f"/console/apps/{app.id}/"


def test_the_platform_rule_is_shown_beside_the_identifier(console):
    response = console.post("/console/apps/new", {"name": "Runner", "platform": "ios"})
    html = response.content.decode()
    assert response.status_code == 400
    assert 'id="err_bundle_id"' in html
    assert "This field is required when platform is ios." in html
    assert 'value="Runner"' in html
    assert not App.objects.exists()


def test_a_failed_submit_shows_the_fingerprints_box_as_typed_and_the_next_one_succeeds(
        console, owner):
    form = {"name": "Runner", "platform": "android", "package_name": "com.acme.runner",
            "play_store_url": "not a url", "android_sha256_fingerprints": ""}
    first = console.post("/console/apps/new", form)
    html = first.content.decode()
    assert first.status_code == 400
    assert "[]" not in html
    # The browser sends the box back as it was shown: empty, so the corrected form is created.
    form["play_store_url"] = "https://play.google.com/store/apps/details?id=com.acme.runner"
    second = console.post("/console/apps/new", form)
    assert second.status_code == 302
    assert App.objects.get(organization=owner.organization).android_sha256_fingerprints in (
        None, [])


def test_a_malformed_url_is_refused_as_the_api_refuses_it(console):
    response = console.post("/console/apps/new", {
        "name": "Runner", "platform": "android", "package_name": "com.acme.runner",
        "play_store_url": "javascript:alert(1)"})
    assert response.status_code == 400
    assert 'id="err_play_store_url"' in response.content.decode()


def test_a_duplicate_identifier_is_a_conflict_beside_the_field(console, app):
    response = console.post("/console/apps/new", {
        "name": "Again", "platform": "android", "package_name": app.package_name})
    assert response.status_code == 409
    assert 'id="err_package_name"' in response.content.decode()


def test_editing_changes_the_name_and_clears_a_url(console, app):
    response = console.post(f"/console/apps/{app.id}/settings",
                            {"name": "Renamed", "app_store_url": "", "play_store_url":
                             app.play_store_url})
    assert response.status_code == 302
    app.refresh_from_db()
    assert app.name == "Renamed"
    assert app.app_store_url is None


def test_editing_shows_errors_and_keeps_the_app(console, app):
    response = console.post(f"/console/apps/{app.id}/settings", {"name": ""})
    assert response.status_code == 400
    assert 'id="err_name"' in response.content.decode()
    app.refresh_from_db()
    assert app.name != ""


def test_the_delete_confirmation_says_what_goes_with_the_app(console, app):
    issue_key(app)
    html = console.get(f"/console/apps/{app.id}/delete").content.decode()
    assert "its 1 active API key" in html
    assert "every click, install, re-engagement and in-app event" in html
    assert App.objects.filter(id=app.id).exists()


def test_deleting_needs_the_apps_name(console, app):
    response = console.post(f"/console/apps/{app.id}/delete", {"confirm_name": "nope"})
    assert response.status_code == 400
    assert App.objects.filter(id=app.id).exists()


def test_deleting_removes_the_app_and_its_keys(console, app):
    issue_key(app)
    response = console.post(f"/console/apps/{app.id}/delete", {"confirm_name": app.name})
    assert response.status_code == 302
    assert not App.objects.filter(id=app.id).exists()
    assert not ApiKey.objects.filter(app_id=app.id).exists()


@pytest.mark.parametrize("page", ["settings", "delete", ""])
def test_another_organizations_app_is_a_404_page(console, outsider_app, page):
    response = console.get(f"/console/apps/{outsider_app.id}/{page}")
    assert response.status_code == 404
    assert outsider_app.name not in response.content.decode()


def test_another_organizations_app_cannot_be_deleted(console, outsider_app):
    response = console.post(f"/console/apps/{outsider_app.id}/delete",
                            {"confirm_name": outsider_app.name})
    assert response.status_code == 404
    assert App.objects.filter(id=outsider_app.id).exists()


def test_the_app_switcher_opens_the_chosen_app_and_refuses_others(console, app, outsider_app):
    assert console.get(f"/console/?app={app.id}")["Location"] == f"/console/apps/{app.id}/"
    assert console.get(f"/console/?app={outsider_app.id}").status_code == 404
    assert console.get("/console/?app=not-a-uuid").status_code == 404


def test_an_app_name_is_shown_as_text(console, owner):
    AppFactory(organization=owner.organization, name=XSS_CAMPAIGN)
    html = console.get("/console/").content.decode()
    assert_shown_as_text(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_ios_fingerprinting_policy_is_a_labelled_select_on_apples_side_by_default(
        console, app):
    html = console.get(f"/console/apps/{app.id}/settings").content.decode()
    assert '<label for="id_ios_fingerprinting">' in html
    assert ('<option value="never_without_consent" selected>Only with tracking consent '
            "(Apple&#x27;s policy)</option>") in html
    new_form = console.get("/console/apps/new").content.decode()
    assert '<option value="never_without_consent" selected>' in new_form


def test_an_owner_can_choose_to_fingerprint_always_and_back(console, app):
    response = console.post(f"/console/apps/{app.id}/settings",
                            {"name": app.name, "ios_fingerprinting": "always"})
    assert response.status_code == 302
    app.refresh_from_db()
    assert app.ios_fingerprinting == "always"
    html = console.get(f"/console/apps/{app.id}/settings").content.decode()
    assert '<option value="always" selected>' in html
    console.post(f"/console/apps/{app.id}/settings",
                 {"name": app.name, "ios_fingerprinting": "never_without_consent"})
    app.refresh_from_db()
    assert app.ios_fingerprinting == "never_without_consent"


def test_an_unknown_policy_is_refused_beside_the_select(console, app):
    response = console.post(f"/console/apps/{app.id}/settings",
                            {"name": app.name, "ios_fingerprinting": "sometimes"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="err_ios_fingerprinting"' in html
    assert "Must be one of never_without_consent, always." in html
    app.refresh_from_db()
    assert app.ios_fingerprinting == "never_without_consent"


def test_an_app_can_be_created_with_its_policy(console, owner):
    console.post("/console/apps/new", {
        "name": "Runner", "platform": "ios", "bundle_id": "com.acme.runner",
        "ios_fingerprinting": "always"})
    assert App.objects.get(bundle_id="com.acme.runner").ios_fingerprinting == "always"
