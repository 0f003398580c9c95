"""delivery_targets: the PostgreSQL statement and the ORM union return the same targets, and
configuration changes reach the cached copy."""

import pytest

from delivery import selectors
from delivery.models import Kind
from tests.helpers import served_from_memory

pytestmark = pytest.mark.django_db


def test_plain_sql_and_orm_targets_agree(owner_api, app, monkeypatch):
    owner_api.post("/api/v1/postbacks", {"app_id": str(app.id), "media_source": "facebook",
                                         "postback_url": "https://network.example/pb?d={device_id}",
                                         "events": ["install", "event"]}, format="json")
    owner_api.post("/api/v1/postbacks", {"app_id": str(app.id), "media_source": "tiktok",
                                         "postback_url": "https://network.example/tt",
                                         "active": False}, format="json")
    owner_api.post("/api/v1/webhooks", {"app_id": str(app.id), "url": "https://hooks.example.com/x",
                                        "events": ["install"]}, format="json")
    native = sorted(selectors._targets_uncached([app.id]), key=lambda t: t.kind)
    monkeypatch.setattr(selectors.connection, "vendor", "sqlite")
    orm = sorted(selectors._targets_uncached([app.id]), key=lambda t: t.kind)
    assert native == orm
    assert [(t.kind, t.media_source, t.events) for t in native] == [
        (Kind.POSTBACK.value, "facebook", ("install", "event")),
        (Kind.WEBHOOK.value, "", ("install",))]
    assert sorted(selectors.delivery_targets(app_ids=[app.id]), key=lambda t: t.kind) == native


@pytest.mark.redis
def test_every_configuration_change_reaches_the_targets_at_once(owner_api, app,
                                                                live_local_caches):
    def targets():
        return sorted((t.kind, t.media_source, t.events)
                      for t in selectors.delivery_targets(app_ids=[app.id]))

    def after(response, expected):
        assert response.status_code in (200, 201), response.content
        assert targets() == expected
        assert served_from_memory(targets)  # the next change must reach a cached copy
        return response.json()["data"]

    after(owner_api.get(f"/api/v1/postbacks?app_id={app.id}"), [])
    postback = after(owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "facebook",
        "postback_url": "https://network.example/pb"}, format="json"),
        [("postback", "facebook", ("install",))])["postback"]["id"]
    webhook = after(owner_api.post("/api/v1/webhooks", {
        "app_id": str(app.id), "url": "https://hooks.example.com/x", "events": ["install"]},
        format="json"),
        [("postback", "facebook", ("install",)), ("webhook", "", ("install",))])["webhook"]["id"]
    after(owner_api.put(f"/api/v1/postbacks/{postback}", {"active": False}, format="json"),
          [("webhook", "", ("install",))])
    after(owner_api.put(f"/api/v1/webhooks/{webhook}", {"events": ["event"]}, format="json"),
          [("webhook", "", ("event",))])
    after(owner_api.put(f"/api/v1/postbacks/{postback}", {"active": True}, format="json"),
          [("postback", "facebook", ("install",)), ("webhook", "", ("event",))])
    after(owner_api.delete(f"/api/v1/postbacks/{postback}"), [("webhook", "", ("event",))])
    after(owner_api.delete(f"/api/v1/webhooks/{webhook}"), [])


@pytest.mark.redis
def test_an_operator_switching_a_postback_off_in_the_admin_reaches_the_targets(
        app, django_user_model, live_local_caches):
    from django.test import Client

    from tests.delivery.helpers import make_postback

    postback = make_postback(app, "https://network.example/pb", media_source="facebook")
    assert [t.media_source for t in selectors.delivery_targets(app_ids=[app.id])] == ["facebook"]
    assert served_from_memory(lambda: selectors.delivery_targets(app_ids=[app.id]))
    staff = django_user_model.objects.create_superuser("ops@example.com", "correct horse")
    client = Client()
    client.force_login(staff)
    response = client.post(f"/admin/delivery/postbackconfig/{postback.id}/change/", {})
    assert response.status_code == 302  # saved, `active` unticked
    assert selectors.delivery_targets(app_ids=[app.id]) == []
