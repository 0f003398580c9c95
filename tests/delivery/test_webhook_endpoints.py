"""Webhook endpoints: create (secret once, stored encrypted), list, update, delete, scoping."""

import pytest

from attribution_site.secrets import (
    WEBHOOK_SIGNING,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from delivery.models import Webhook
from delivery.services import MAX_WEBHOOKS_PER_APP

pytestmark = pytest.mark.django_db

URL = "https://hooks.example/attribution"


def create(client, app, **overrides):
    body = {"app_id": str(app.id), "url": URL, "events": ["install", "event"]}
    body.update(overrides)
    return client.post("/api/v1/webhooks", body, format="json")


def test_create_returns_the_webhook_and_its_secret_once(owner_api, app):
    response = create(owner_api, app)
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["webhook"]["url"] == URL
    assert data["webhook"]["events"] == ["install", "event"]
    assert data["webhook"]["active"] is True
    assert data["webhook"]["created_at"].endswith("Z")
    assert data["secret"].startswith("whsec_") and len(data["secret"]) > 40
    assert "secret" in data["message"].lower()
    listed = owner_api.get(f"/api/v1/webhooks?app_id={app.id}").json()["data"]["webhooks"]
    assert [w["id"] for w in listed] == [data["webhook"]["id"]]
    assert "secret" not in listed[0]
    single = owner_api.get(f"/api/v1/webhooks/{data['webhook']['id']}").json()["data"]
    assert "secret" not in single["webhook"]


def test_the_secret_is_stored_encrypted_not_in_clear(owner_api, app):
    secret = create(owner_api, app).json()["data"]["secret"]
    stored = Webhook.objects.get()
    assert secret not in stored.secret_encrypted
    assert secret.removeprefix("whsec_") not in stored.secret_encrypted
    assert secret_decrypt(stored.secret_encrypted, purpose=WEBHOOK_SIGNING) == secret


def test_a_secret_encrypted_under_an_old_key_still_reads_after_rotation(settings):
    token = secret_encrypt("whsec_old", purpose=WEBHOOK_SIGNING)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-brand-new-secret-key-for-this-deployment-0000"
    assert secret_decrypt(token, purpose=WEBHOOK_SIGNING) == "whsec_old"
    settings.SECRET_KEY_FALLBACKS = []
    with pytest.raises(SecretUnreadable):
        secret_decrypt(token, purpose=WEBHOOK_SIGNING)


@pytest.mark.parametrize("overrides,field", [
    ({"url": "http://hooks.example/x"}, "url"),
    ({"url": "hooks.example"}, "url"),
    ({"url": None}, "url"),
    ({"events": []}, "events"),
    ({"events": ["install", "click"]}, "events"),
    ({"events": "install"}, "events"),
    ({"active": False}, "active"),
    ({"secret": "mine"}, "secret"),
])
def test_invalid_bodies_are_refused(owner_api, app, overrides, field, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # as in production: webhooks are https
    response = create(owner_api, app, **overrides)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["details"]
    assert not Webhook.objects.exists()


def test_missing_fields_are_named(owner_api):
    response = owner_api.post("/api/v1/webhooks", {}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"app_id", "url", "events"}


def test_update_changes_url_events_and_active_only_as_sent(owner_api, app):
    webhook = create(owner_api, app).json()["data"]["webhook"]
    path = f"/api/v1/webhooks/{webhook['id']}"
    response = owner_api.put(path, {"events": ["re-engagement"]}, format="json")
    assert response.status_code == 200
    updated = response.json()["data"]["webhook"]
    assert updated["events"] == ["re-engagement"] and updated["url"] == URL
    assert updated["active"] is True
    response = owner_api.put(path, {"url": "https://new.example/h", "active": False},
                             format="json")
    updated = response.json()["data"]["webhook"]
    assert (updated["url"], updated["active"]) == ("https://new.example/h", False)
    stored = Webhook.objects.get()
    assert (stored.url, stored.events, stored.active) == (
        "https://new.example/h", ["re-engagement"], False)


@pytest.mark.parametrize("body,field", [
    ({"url": "http://hooks.example/"}, "url"),
    ({"secret": "x"}, "secret"),
    ({"app_id": "11111111-1111-4111-8111-111111111111"}, "app_id"),
    ({"events": []}, "events"),
])
def test_invalid_updates_are_refused(owner_api, app, body, field, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # as in production: webhooks are https
    webhook = create(owner_api, app).json()["data"]["webhook"]
    response = owner_api.put(f"/api/v1/webhooks/{webhook['id']}", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_delete_removes_the_webhook(owner_api, app):
    webhook = create(owner_api, app).json()["data"]["webhook"]
    response = owner_api.delete(f"/api/v1/webhooks/{webhook['id']}")
    assert response.status_code == 200 and response.json()["data"] == {"success": True}
    assert not Webhook.objects.exists()


def test_an_app_has_a_bounded_number_of_webhooks(owner_api, app):
    for _ in range(MAX_WEBHOOKS_PER_APP):
        assert create(owner_api, app).status_code == 201
    response = create(owner_api, app)
    assert response.status_code == 400
    assert Webhook.objects.count() == MAX_WEBHOOKS_PER_APP


def test_an_outsider_sees_404_for_everything_of_another_organization(owner_api, outsider_api,
                                                                     app):
    webhook = create(owner_api, app).json()["data"]["webhook"]
    assert create(outsider_api, app).status_code == 404
    assert outsider_api.get(f"/api/v1/webhooks?app_id={app.id}").status_code == 404
    path = f"/api/v1/webhooks/{webhook['id']}"
    assert outsider_api.get(path).status_code == 404
    assert outsider_api.put(path, {"active": False}, format="json").status_code == 404
    assert outsider_api.delete(path).status_code == 404
    assert outsider_api.post(f"{path}/test").status_code == 404
    assert outsider_api.get(f"/api/v1/webhooks/logs?app_id={app.id}").status_code == 404
    assert Webhook.objects.get().active is True
