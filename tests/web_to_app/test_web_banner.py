"""GET /api/v1/web/banner and POST /api/v1/web/banner-events, as the web script calls them."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import issue_key
from tests.tracking.helpers import ANDROID_BROWSER, IPHONE_SAFARI
from tests.web_to_app.helpers import ORIGIN
from web_to_app.models import BannerEvent

pytestmark = pytest.mark.django_db

DESKTOP = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/126.0 Safari/537.36")
WEB_ID = "0b6e1f5c-3a5e-4c1e-9a53-7d1f0c2e9b11"


def get_banner(client, key, *, web_id=WEB_ID, ua=ANDROID_BROWSER, origin=ORIGIN):
    query = {"key": key} if web_id is None else {"key": key, "web_id": web_id}
    return client.get("/api/v1/web/banner", query, HTTP_ORIGIN=origin, HTTP_USER_AGENT=ua)


def post_event(client, key, body, *, origin=ORIGIN):
    return client.post(f"/api/v1/web/banner-events?key={key}", json.dumps(body),
                       content_type="text/plain;charset=UTF-8", HTTP_ORIGIN=origin)


def event(kind="view", **overrides):
    return {"web_id": WEB_ID, "kind": kind, "event_id": str(uuid.uuid4()),
            "timestamp": int(time.time() * 1000), **overrides}


def test_an_android_phone_gets_the_banner_with_the_android_apps_short_link(
        client, web_key, banner):
    response = get_banner(client, web_key)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    data = response.json()["data"]
    android_link = next(row["url"] for row in banner["links"] if row["platform"] == "android")
    assert data == {"title": "Shop in the app", "body": "Faster checkout", "button": "Open",
                    "icon_url": None, "platforms": ["ios", "android"], "dismiss_days": 3,
                    "deep_link_value": "product/{path}", "carry_visit_source": False,
                    "link": android_link}


def test_an_iphone_gets_the_ios_apps_link(client, web_key, banner):
    data = get_banner(client, web_key, ua=IPHONE_SAFARI).json()["data"]
    assert data["link"] == next(r["url"] for r in banner["links"] if r["platform"] == "ios")


def test_a_desktop_gets_null_unless_the_banner_shows_on_desktop(client, owner_api, web_key,
                                                                 banner, linked):
    assert get_banner(client, web_key, ua=DESKTOP).json()["data"] is None
    owner_api.put(f"/api/v1/apps/{linked.id}/banner", {
        "title": "T", "button": "B", "platforms": ["desktop"]}, format="json")
    assert get_banner(client, web_key, ua=DESKTOP).json()["data"]["link"] == (
        banner["links"][0]["url"])
    assert get_banner(client, web_key).json()["data"] is None  # android left out


def test_no_banner_is_null(client, web_key):
    response = get_banner(client, web_key)
    assert response.status_code == 200 and response.json()["data"] is None


@pytest.mark.parametrize("web_id,message", [(None, "Required."), ("", "Required."),
                                            ("not-a-uuid", "Must be a UUID.")])
def test_a_missing_or_bad_web_id_is_refused(client, web_key, banner, web_id, message):
    response = get_banner(client, web_key, web_id=web_id)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"web_id": [message]}


def test_a_foreign_origin_and_a_server_key_are_refused(client, web_key, web_app, banner):
    refused = get_banner(client, web_key, origin="https://evil.example")
    assert refused.status_code == 403 and "Access-Control-Allow-Origin" not in refused
    assert get_banner(client, issue_key(web_app)).status_code == 403


def test_banner_events_are_recorded_once_per_event_id(client, web_key, web_app):
    body = event("click")
    assert post_event(client, web_key, body).json()["data"] == {"recorded": True}
    assert post_event(client, web_key, body).json()["data"] == {"recorded": False}
    row = BannerEvent.objects.get()
    assert (row.web_app_id, row.kind, row.web_id) == (web_app.id, "click", WEB_ID)
    assert abs(row.occurred_at - timezone.now()) < timedelta(seconds=5)


def test_a_replayed_event_keeps_its_time_and_a_wild_clock_takes_the_arrival(client, web_key):
    two_days_ago = timezone.now() - timedelta(days=2)
    post_event(client, web_key, event(timestamp=int(two_days_ago.timestamp() * 1000)))
    post_event(client, web_key, event(timestamp=0))
    old, wild = BannerEvent.objects.order_by("id")
    assert abs(old.occurred_at - two_days_ago) < timedelta(seconds=1)
    assert abs(wild.occurred_at - timezone.now()) < timedelta(seconds=5)


@pytest.mark.parametrize("change,field,message", [
    ({"kind": "hover"}, "kind", "Must be one of view, click, dismiss."),
    ({"web_id": "x"}, "web_id", "Must be a UUID."),
    ({"event_id": "x"}, "event_id", "Must be a UUID."),
    ({"timestamp": "now"}, "timestamp", None),
    ({"timestamp": -1}, "timestamp", None),
    ({"extra": 1}, "extra", "Unknown field."),
])
def test_bad_events_are_refused_naming_the_field(client, web_key, change, field, message):
    response = post_event(client, web_key, event(**change))
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert list(details) == [field]
    if message:
        assert details[field] == [message]
    assert not BannerEvent.objects.exists()


def test_a_body_that_is_not_json_is_refused_and_never_a_500(client, web_key):
    response = client.post(f"/api/v1/web/banner-events?key={web_key}", "{not json",
                           content_type="text/plain", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 400


def _visit(client, key, ua):
    return client.post(f"/api/v1/web/visits?key={key}", json.dumps({
        "web_id": WEB_ID, "visit_id": str(uuid.uuid4()), "timestamp": int(time.time() * 1000),
        "url": "https://shop.example/shoes", "referrer": "", "sdk_version": "1.0.0"}),
        content_type="text/plain;charset=UTF-8", HTTP_ORIGIN=ORIGIN, HTTP_USER_AGENT=ua)


def test_a_visit_answer_carries_the_banner_only_when_it_shows_by_itself(
        client, owner_api, web_key, banner, linked):
    assert "banner" not in _visit(client, web_key, ANDROID_BROWSER).json()["data"]
    owner_api.put(f"/api/v1/apps/{linked.id}/banner", {
        "title": "T", "button": "B", "platforms": ["android"], "auto_show": True}, format="json")
    data = _visit(client, web_key, ANDROID_BROWSER).json()["data"]
    assert data["banner"]["title"] == "T" and data["banner"]["link"].startswith(
        "http://testserver/l/")
    assert "banner" not in _visit(client, web_key, IPHONE_SAFARI).json()["data"]


def test_erasing_a_web_id_blanks_it_in_banner_events_and_keeps_the_counts(client, web_key,
                                                                          web_app):
    from web_to_app import erasure

    post_event(client, web_key, event("view"))
    assert erasure.records_for(web_app.id, device_ids=[WEB_ID])["banner_events"][0][
        "web_id"] == WEB_ID
    assert erasure.erase(web_app.id, device_ids=[WEB_ID]) == {
        "web_to_app_bannerevent": 1, "web_to_app_webclick": 0}
    assert BannerEvent.objects.get().web_id == ""
    assert erasure.records_for(web_app.id, device_ids=[WEB_ID])["banner_events"] == []
