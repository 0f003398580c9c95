"""`linked_apps` on the app API: a web app names its organization's iOS and Android apps."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import AppFactory
from web_to_app.models import LinkedApp

pytestmark = pytest.mark.django_db


def _put(api, app, value):
    return api.put(f"/api/v1/apps/{app.id}", {"linked_apps": value}, format="json")


def test_a_web_app_names_its_mobile_apps_and_reads_them_back(owner_api, linked, ios_app,
                                                              android_app):
    answer = owner_api.get(f"/api/v1/apps/{linked.id}").json()["data"]["app"]
    assert answer["linked_apps"] == [str(ios_app.id), str(android_app.id)]
    assert list(LinkedApp.objects.values_list("app_id", flat=True).order_by("position")) == [
        ios_app.id, android_app.id]


def test_the_list_replaces_the_stored_one_and_an_empty_list_clears_it(owner_api, linked,
                                                                      android_app):
    answer = _put(owner_api, linked, [str(android_app.id)]).json()["data"]["app"]
    assert answer["linked_apps"] == [str(android_app.id)]
    assert _put(owner_api, linked, []).json()["data"]["app"]["linked_apps"] == []
    assert not LinkedApp.objects.exists()


def test_a_mobile_app_shows_no_linked_apps(owner_api, android_app):
    answer = owner_api.get(f"/api/v1/apps/{android_app.id}").json()["data"]["app"]
    assert answer["linked_apps"] == []


def test_only_a_web_app_has_linked_apps(owner_api, android_app, ios_app):
    response = _put(owner_api, android_app, [str(ios_app.id)])
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "linked_apps": ["Only a web app has linked apps."]}


def test_another_organizations_app_is_refused(owner_api, web_app):
    stranger = AppFactory()
    response = _put(owner_api, web_app, [str(stranger.id)])
    assert response.status_code == 400
    assert response.json()["error"]["details"]["linked_apps"] == [
        f"{stranger.id}: no app of this organization has this id."]
    assert not LinkedApp.objects.exists()


def test_a_web_app_cannot_be_linked(owner_api, owner, web_app):
    other_site = AppFactory(organization=owner.organization, platform="web", package_name=None,
                            domain="blog.example")
    response = _put(owner_api, web_app, [str(other_site.id)])
    assert response.json()["error"]["details"]["linked_apps"] == [
        f"{other_site.id}: must be an iOS or Android app."]


@pytest.mark.parametrize("value,message", [
    ("abc", "Must be a JSON array."),
    (["not-a-uuid"], None),
    ([str(uuid.UUID(int=1))], f"{uuid.UUID(int=1)}: no app of this organization has this id."),
])
def test_bad_values_are_refused_naming_the_field(owner_api, web_app, value, message):
    response = _put(owner_api, web_app, value)
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert list(details) == ["linked_apps"]
    if message:
        assert message in str(details["linked_apps"])


def test_an_app_named_twice_is_refused(owner_api, web_app, android_app):
    response = _put(owner_api, web_app, [str(android_app.id)] * 2)
    assert response.json()["error"]["details"] == {"linked_apps": ["An app is named twice."]}


def test_deleting_a_linked_app_unlinks_it(owner_api, linked, android_app, ios_app):
    android_app.delete()
    answer = owner_api.get(f"/api/v1/apps/{linked.id}").json()["data"]["app"]
    assert answer["linked_apps"] == [str(ios_app.id)]
