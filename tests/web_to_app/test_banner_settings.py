"""PUT/GET /api/v1/apps/{id}/banner: the banner's settings, checked field by field."""

from __future__ import annotations

import pytest

from links.models import Link
from tests.factories import UserFactory
from tests.helpers import client_for
from web_to_app.models import Banner, BannerLink

pytestmark = pytest.mark.django_db

GOOD = {"title": "Shop in the app", "body": "Faster checkout", "button": "Open",
        "icon_url": "https://cdn.shop.example/icon.png", "platforms": ["android", "ios"],
        "dismiss_days": 3, "deep_link_value": "product/{path}", "carry_visit_source": True,
        "auto_show": True}


def _put(api, app, body):
    return api.put(f"/api/v1/apps/{app.id}/banner", body, format="json")


def test_the_banner_is_stored_and_read_back_with_one_link_per_linked_app(
        owner_api, linked, ios_app, android_app):
    response = _put(owner_api, linked, GOOD)
    assert response.status_code == 200, response.json()
    banner = owner_api.get(f"/api/v1/apps/{linked.id}/banner").json()["data"]["banner"]
    assert {k: banner[k] for k in GOOD} == {**GOOD, "platforms": ["ios", "android"]}
    links = {row["platform"]: row for row in banner["links"]}
    assert set(links) == {"ios", "android"}
    android_link = Link.objects.get(id=links["android"]["link_id"])
    assert android_link.app_id == android_app.id
    assert android_link.media_source == "web_banner" and android_link.deep_link_value == ""
    assert links["android"]["url"] == f"http://testserver/l/{android_link.code}"


def test_a_second_put_replaces_the_banner_and_keeps_its_links(owner_api, linked):
    _put(owner_api, linked, GOOD)
    answer = _put(owner_api, linked, {"title": "T", "button": "Go"}).json()["data"]["banner"]
    assert answer["platforms"] == ["ios", "android"] and answer["auto_show"] is False
    assert answer["deep_link_value"] is None and answer["dismiss_days"] == 7
    assert Banner.objects.count() == 1 and BannerLink.objects.count() == 2
    assert Link.objects.count() == 2


def test_no_banner_reads_as_null(owner_api, web_app):
    assert owner_api.get(f"/api/v1/apps/{web_app.id}/banner").json()["data"] == {"banner": None}


@pytest.mark.parametrize("change,field,message", [
    ({"title": ""}, "title", "This field may not be blank."),
    ({"title": 5}, "title", "Must be a string."),
    ({"button": "x" * 31}, "button", "Ensure this field has no more than 30 characters."),
    ({"icon_url": "http://cdn.shop.example/i.png"}, "icon_url", "Must be an absolute https URL."),
    ({"icon_url": "javascript:alert(1)"}, "icon_url", "Must be an absolute https URL."),
    ({"platforms": ["ios", "windows"]}, "platforms", "1: Must be one of ios, android, desktop."),
    ({"platforms": []}, "platforms", "Name at least one of ios, android, desktop."),
    ({"platforms": ["ios", "ios"]}, "platforms", "A platform is named twice."),
    ({"dismiss_days": -1}, "dismiss_days", "Ensure this value is greater than or equal to 0."),
    ({"dismiss_days": 1.5}, "dismiss_days", None),
    ({"deep_link_value": "p/{id}"}, "deep_link_value",
     "Unknown placeholder {id}: the only one is {path}."),
    ({"carry_visit_source": "yes"}, "carry_visit_source", "Must be true or false."),
    ({"auto_show": 1}, "auto_show", "Must be true or false."),
    ({"colour": "red"}, "colour", "Unknown field."),
])
def test_bad_fields_are_refused_naming_them(owner_api, linked, change, field, message):
    response = _put(owner_api, linked, {**GOOD, **change})
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert list(details) == [field]
    if message:
        assert details[field] == [message]
    assert not Banner.objects.exists()


def test_required_fields(owner_api, linked):
    details = _put(owner_api, linked, {}).json()["error"]["details"]
    assert set(details) == {"title", "button"}


def test_a_platform_without_a_linked_app_is_refused(owner_api, web_app, android_app):
    owner_api.put(f"/api/v1/apps/{web_app.id}", {"linked_apps": [str(android_app.id)]},
                  format="json")
    response = _put(owner_api, web_app, GOOD)
    assert response.json()["error"]["details"] == {
        "platforms": ["No ios app is linked to this web app (linked_apps)."]}
    assert _put(owner_api, web_app, {**GOOD, "platforms": ["android", "desktop"]}
                ).status_code == 200


def test_a_web_app_without_linked_apps_cannot_have_a_banner(owner_api, web_app):
    response = _put(owner_api, web_app, GOOD)
    assert response.json()["error"]["details"] == {"platforms": [
        "Link an iOS or Android app to this web app first (linked_apps)."]}


def test_a_mobile_app_has_no_banner(owner_api, android_app):
    response = _put(owner_api, android_app, GOOD)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"platform": [
        "Only a web app has a banner; this app's platform is android."]}


def test_a_marketer_reads_but_only_those_who_configure_change(owner_api, linked):
    _put(owner_api, linked, GOOD)
    marketer = client_for(UserFactory(organization=linked.organization, role="marketer"))
    assert marketer.get(f"/api/v1/apps/{linked.id}/banner").status_code == 200
    response = _put(marketer, linked, {**GOOD, "title": "Mine"})
    assert response.status_code == 403
    assert Banner.objects.get().title == GOOD["title"]


def test_another_organizations_banner_is_not_found(outsider_api, linked):
    assert outsider_api.get(f"/api/v1/apps/{linked.id}/banner").status_code == 404
    assert _put(outsider_api, linked, GOOD).status_code == 404
