"""Postback configuration endpoints: create, list, update, delete, organization scoping."""

import pytest

from delivery.models import PostbackConfig
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db

URL = "https://network.example/pb?d={device_id}&c={campaign_id}&t={install_time}"


def create(client, app, **overrides):
    body = {"app_id": str(app.id), "media_source": "network_a", "postback_url": URL}
    body.update(overrides)
    return client.post("/api/v1/postbacks", body, format="json")


def test_owner_creates_a_postback_with_defaults(owner_api, app):
    response = create(owner_api, app)
    assert response.status_code == 201
    postback = response.json()["data"]["postback"]
    assert postback["media_source"] == "network_a"
    assert postback["postback_url"] == URL
    assert postback["http_method"] == "GET"
    assert postback["active"] is True
    assert postback["events"] == ["install"]
    assert postback["app_id"] == str(app.id)
    assert postback["created_at"].endswith("Z")
    stored = PostbackConfig.objects.get(id=postback["id"])
    assert stored.app_id == app.id and stored.postback_url == URL


def test_create_accepts_method_events_and_active(owner_api, app):
    response = create(owner_api, app, http_method="POST", events=["install", "event"],
                      active=False)
    assert response.status_code == 201
    postback = response.json()["data"]["postback"]
    assert (postback["http_method"], postback["events"], postback["active"]) == (
        "POST", ["install", "event"], False)


def test_a_second_postback_for_the_same_media_source_is_a_conflict(owner_api, app):
    assert create(owner_api, app).status_code == 201
    response = create(owner_api, app, postback_url="https://other.example/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert PostbackConfig.objects.count() == 1


def test_the_same_media_source_on_another_app_is_fine(owner_api, owner, app):
    other = AppFactory(organization=owner.organization)
    assert create(owner_api, app).status_code == 201
    assert create(owner_api, other).status_code == 201


@pytest.mark.parametrize("overrides,field", [
    ({"postback_url": "ftp://network.example/"}, "postback_url"),
    ({"postback_url": "not a url"}, "postback_url"),
    ({"postback_url": 7}, "postback_url"),
    ({"postback_url": "https://{media_source}.example/pb"}, "postback_url"),
    ({"http_method": "PUT"}, "http_method"),
    ({"active": "yes"}, "active"),
    ({"events": []}, "events"),
    ({"events": ["click"]}, "events"),
    ({"media_source": ""}, "media_source"),
    ({"app_id": "not-a-uuid"}, "app_id"),
    ({"app_id": 12}, "app_id"),
    ({"colour": "blue"}, "colour"),
])
def test_invalid_bodies_are_refused(owner_api, app, overrides, field):
    response = create(owner_api, app, **overrides)
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["error"]["code"] == "VALIDATION_ERROR"
    assert field in body["error"]["details"]
    assert PostbackConfig.objects.count() == 0


def test_an_unknown_macro_is_a_400_naming_it(owner_api, app):
    response = create(owner_api, app, postback_url="https://n.example/pb?x={idfa}&y={device_id}")
    assert response.status_code == 400
    message = response.json()["error"]["details"]["postback_url"][0]
    assert "{idfa}" in message and "{device_id}" not in message.split(".")[0]


def test_every_documented_macro_is_accepted(owner_api, app):
    from delivery.payloads import MACROS

    url = "https://n.example/pb?" + "&".join(f"{m}={{{m}}}" for m in MACROS)
    assert create(owner_api, app, postback_url=url).status_code == 201


def test_list_returns_the_apps_postbacks(owner_api, app):
    create(owner_api, app)
    create(owner_api, app, media_source="network_b")
    response = owner_api.get(f"/api/v1/postbacks?app_id={app.id}")
    assert response.status_code == 200
    assert [p["media_source"] for p in response.json()["data"]["postbacks"]] == [
        "network_a", "network_b"]


def test_list_needs_an_app_id(owner_api):
    response = owner_api.get("/api/v1/postbacks")
    assert response.status_code == 400
    assert "app_id" in response.json()["error"]["details"]


def test_update_changes_only_the_fields_sent(owner_api, app):
    postback = create(owner_api, app).json()["data"]["postback"]
    response = owner_api.put(f"/api/v1/postbacks/{postback['id']}", {"active": False},
                             format="json")
    assert response.status_code == 200
    updated = response.json()["data"]["postback"]
    assert updated["active"] is False
    assert updated["postback_url"] == URL and updated["media_source"] == "network_a"
    assert PostbackConfig.objects.get(id=postback["id"]).active is False


def test_update_can_change_every_updatable_field(owner_api, app):
    postback = create(owner_api, app).json()["data"]["postback"]
    changes = {"media_source": "network_z", "postback_url": "http://z.example/?d={device_id}",
               "http_method": "POST", "events": ["event"], "active": False}
    response = owner_api.put(f"/api/v1/postbacks/{postback['id']}", changes, format="json")
    assert response.status_code == 200
    updated = response.json()["data"]["postback"]
    assert {k: updated[k] for k in changes} == changes


def test_update_to_a_media_source_already_configured_is_a_conflict(owner_api, app):
    create(owner_api, app, media_source="network_b")
    postback = create(owner_api, app).json()["data"]["postback"]
    response = owner_api.put(f"/api/v1/postbacks/{postback['id']}",
                             {"media_source": "network_b"}, format="json")
    assert response.status_code == 409
    assert PostbackConfig.objects.get(id=postback["id"]).media_source == "network_a"


@pytest.mark.parametrize("body,field", [
    ({"app_id": "11111111-1111-4111-8111-111111111111"}, "app_id"),
    ({"postback_url": "https://n.example/?x={nope}"}, "postback_url"),
    ({"active": 0}, "active"),
])
def test_invalid_updates_are_refused(owner_api, app, body, field):
    postback = create(owner_api, app).json()["data"]["postback"]
    response = owner_api.put(f"/api/v1/postbacks/{postback['id']}", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_delete_removes_the_configuration(owner_api, app):
    postback = create(owner_api, app).json()["data"]["postback"]
    response = owner_api.delete(f"/api/v1/postbacks/{postback['id']}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"success": True}}
    assert not PostbackConfig.objects.exists()
    assert owner_api.delete(f"/api/v1/postbacks/{postback['id']}").status_code == 404


def test_an_outsider_sees_404_for_everything_of_another_organization(owner_api, outsider_api,
                                                                     app):
    postback = create(owner_api, app).json()["data"]["postback"]
    assert create(outsider_api, app).status_code == 404
    assert outsider_api.get(f"/api/v1/postbacks?app_id={app.id}").status_code == 404
    base = f"/api/v1/postbacks/{postback['id']}"
    assert outsider_api.get(base).status_code == 404
    assert outsider_api.put(base, {"active": False}, format="json").status_code == 404
    assert outsider_api.delete(base).status_code == 404
    assert outsider_api.post(f"{base}/test").status_code == 404
    assert outsider_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").status_code == 404
    assert PostbackConfig.objects.get(id=postback["id"]).active is True


def test_anonymous_callers_get_401(api, app):
    assert api.get(f"/api/v1/postbacks?app_id={app.id}").status_code == 401
    assert api.post("/api/v1/postbacks", {}, format="json").status_code == 401
