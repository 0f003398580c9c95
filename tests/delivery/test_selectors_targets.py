"""delivery_targets: the PostgreSQL statement and the ORM union return the same targets."""

import pytest

from delivery import selectors
from delivery.models import Kind

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
    native = sorted(selectors.delivery_targets(app_ids=[app.id]), key=lambda t: t.kind)
    monkeypatch.setattr(selectors.connection, "vendor", "sqlite")
    orm = sorted(selectors.delivery_targets(app_ids=[app.id]), key=lambda t: t.kind)
    assert native == orm
    assert [(t.kind, t.media_source, t.events) for t in native] == [
        (Kind.POSTBACK.value, "facebook", ("install", "event")),
        (Kind.WEBHOOK.value, "", ("install",))]
