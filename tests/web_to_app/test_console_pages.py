"""The console's banner editor and web-to-app report pages of a web app."""

from __future__ import annotations

import pytest

from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.factories import UserFactory
from web_to_app.models import Banner, LinkedApp

pytestmark = pytest.mark.django_db

FORM = {"title": "Shop in the app", "body": "Faster", "button": "Open",
        "icon_url": "https://cdn.shop.example/i.png", "platforms": ["android", "ios"],
        "dismiss_days": "3", "deep_link_value": "product/{path}", "auto_show": "on"}


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_the_editor_links_apps_and_saves_the_banner(console, web_app, ios_app, android_app):
    response = console.post(f"/console/apps/{web_app.id}/banner", {
        **FORM, "linked_apps": [str(ios_app.id), str(android_app.id)]})
    assert response.status_code == 302
    banner = Banner.objects.get()
    assert (banner.title, banner.platforms, banner.dismiss_days) == (
        "Shop in the app", ["ios", "android"], 3)
    assert banner.auto_show is True and banner.carry_visit_source is False
    assert LinkedApp.objects.count() == 2
    page = console.get(f"/console/apps/{web_app.id}/banner").content.decode()
    assert "/l/" in page and 'value="product/{path}"' in page


def test_the_editor_shows_the_apis_messages_and_saves_nothing(console, web_app, android_app):
    response = console.post(f"/console/apps/{web_app.id}/banner", {
        **FORM, "deep_link_value": "p/{id}", "linked_apps": [str(android_app.id)]})
    assert response.status_code == 400
    assert "Unknown placeholder {id}: the only one is {path}." in response.content.decode()
    assert not Banner.objects.exists() and not LinkedApp.objects.exists()


def test_a_platform_without_its_app_is_refused_and_the_links_are_not_kept(
        console, web_app, android_app):
    response = console.post(f"/console/apps/{web_app.id}/banner", {
        **FORM, "linked_apps": [str(android_app.id)]})
    assert response.status_code == 400
    assert "No ios app is linked to this web app" in response.content.decode()
    assert not LinkedApp.objects.exists()


def test_the_preview_is_drawn_by_the_static_script_and_user_text_is_text(
        console, owner_api, linked):
    owner_api.put(f"/api/v1/apps/{linked.id}/banner", {
        "title": XSS_CAMPAIGN, "button": "Go"}, format="json")
    response = console.get(f"/console/apps/{linked.id}/banner")
    html = response.content.decode()
    assert_shown_as_text(html)
    assert "/static/console/banner.js" in html and "<script>" not in html.replace(
        "&lt;script&gt;", "")
    assert " style=" not in html
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "img-src 'self' data: https:" in policy


def test_a_marketer_sees_the_banner_but_cannot_change_it(client, linked, owner_api):
    marketer = UserFactory(organization=linked.organization, role="marketer")
    client.force_login(marketer, backend="django.contrib.auth.backends.ModelBackend")
    assert "disabled" in client.get(f"/console/apps/{linked.id}/banner").content.decode()
    assert client.post(f"/console/apps/{linked.id}/banner", FORM).status_code == 403


def test_a_mobile_app_has_no_banner_page(console, android_app):
    assert console.get(f"/console/apps/{android_app.id}/banner").status_code == 404
    assert console.get(f"/console/apps/{android_app.id}/web-to-app").status_code == 404


def test_the_report_page_shows_the_report(console, linked):
    response = console.get(f"/console/apps/{linked.id}/web-to-app")
    assert response.status_code == 200
    assert "Nothing yet in this period." in response.content.decode()
    bad = console.get(f"/console/apps/{linked.id}/web-to-app?start_date=nope")
    assert bad.status_code == 200 and "Please check the dates." in bad.content.decode()
