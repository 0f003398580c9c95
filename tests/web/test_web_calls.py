"""/api/v1/web/events, /identify, /consent, and what every web call refuses: bad bodies (400
naming the field), big ones (413), floods (429), other origins and server keys (403, nothing
readable), never a 500 (docs/web.md, "Bad input and abuse")."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from consent.models import ConsentRecord
from tests.factories import issue_key
from tests.web.helpers import ORIGIN, Page, new_web_id
from tracking.models import Event, Install
from web.models import WebId

pytestmark = pytest.mark.django_db


def purchase(web_id: str, event_id: str | None = None, **fields) -> dict:
    return {"web_id": web_id, "event_name": "purchase", "event_id": event_id or str(uuid.uuid4()),
            "properties": {"amount": 9.99, "currency": "USD"},
            "timestamp": int(time.time() * 1000), **fields}


def test_a_purchase_is_the_web_apps_revenue_once_per_event_id(page, owner_api, web_app,
                                                              settings):
    settings.ANALYTICS_REFRESH_ON_READ = True
    web_id = new_web_id()
    page.visit(web_id, utm_source="google", utm_campaign="brand")
    body = purchase(web_id)
    first, again = page.post("events", body), page.post("events", body)
    assert first.status_code == 200 and first.json()["data"] == {"accepted": True,
                                                                 "duplicate": False}
    assert again.json()["data"]["duplicate"] is True
    event = Event.objects.get(app_id=web_app.id)
    assert str(event.revenue_amount).startswith("9.99") and event.revenue_currency == "USD"
    assert event.install_id == Install.objects.get(device_id=web_id).id
    today = timezone.now().date()
    report = owner_api.get("/api/v1/analytics/revenue", {
        "app_id": str(web_app.id), "start_date": str(today - timedelta(days=1)),
        "end_date": str(today + timedelta(days=1))})
    assert report.status_code == 200
    assert "9.99" in report.content.decode()


def test_an_event_before_its_visit_is_taken(page, web_app):
    response = page.post("events", purchase(new_web_id()))
    assert response.status_code == 200
    assert Event.objects.filter(app_id=web_app.id, install_id__isnull=True).count() == 1


def test_identify_puts_the_customer_id_on_the_web_id_even_before_its_visit(page, web_app):
    web_id = new_web_id()
    assert page.post("identify", {"web_id": web_id, "customer_user_id": "c-42"}
                     ).status_code == 200
    page.visit(web_id)
    row = WebId.objects.get(app_id=web_app.id, web_id=web_id)
    assert row.customer_user_id == "c-42" and row.install_id is not None


def test_consent_is_recorded_once_for_the_same_values(page, web_app):
    web_id = new_web_id()
    page.visit(web_id)
    body = {"web_id": web_id, "ad_user_data": False, "ad_personalization": True,
            "timestamp": int(time.time() * 1000)}
    assert page.post("consent", body).status_code == 200
    assert page.post("consent", body).status_code == 200
    rows = ConsentRecord.objects.filter(app_id=web_app.id, device_id=web_id)
    assert rows.count() == 1
    assert rows[0].ad_user_data is False and rows[0].ad_personalization is True
    assert rows[0].sharing_filter == ""


def test_consent_of_a_gpc_browser_keeps_the_sharing_filter(page, web_app):
    web_id = new_web_id()
    page.visit(web_id, gpc=True)
    page.post("consent", {"web_id": web_id, "ad_user_data": True, "ad_personalization": True,
                          "timestamp": int(time.time() * 1000)})
    latest = ConsentRecord.objects.filter(device_id=web_id).order_by("-applies_from").first()
    assert latest.sharing_filter == "all" and latest.ad_user_data is True


@pytest.mark.parametrize(("path", "body", "fields"), [
    ("visits", {"web_id": "nope", "visit_id": "x", "url": 5},
     {"web_id", "visit_id", "timestamp", "url"}),
    ("visits", {"web_id": str(uuid.uuid4()), "visit_id": str(uuid.uuid4()),
                "timestamp": 1, "url": "https://shop.example/", "utm_source": "x" * 300,
                "consent": {"ad_user_data": "yes"}, "gpc": "1"},
     {"timestamp", "utm_source", "consent", "gpc"}),
    ("events", {"web_id": str(uuid.uuid4()), "event_name": "", "properties": [],
                "event_id": 7}, {"event_name", "properties", "event_id", "timestamp"}),
    ("identify", {"web_id": str(uuid.uuid4()), "customer_user_id": ""}, {"customer_user_id"}),
    ("consent", {"web_id": str(uuid.uuid4())},
     {"ad_user_data", "ad_personalization", "timestamp"}),
])
def test_a_bad_body_is_400_naming_each_field(page, path, body, fields):
    response = page.post(path, body)
    assert response.status_code == 400
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and set(error["details"]) == fields


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", "", "{" * 5000, "\"text\"",
                                 b"\xff\xfe", "null"])
def test_a_body_that_is_no_json_object_is_400(page, raw):
    response = page.post("visits", raw)
    assert response.status_code == 400
    assert response.json()["success"] is False


def test_a_body_over_64_kb_is_413(page):
    response = page.post("events", purchase(new_web_id(), properties={"x": "y" * 70_000}))
    assert response.status_code == 413
    assert response.json()["error"]["details"] == {"body": ["At most 65536 bytes."]}


def test_an_event_with_a_bad_currency_is_still_taken_as_the_apps_events_are(page):
    response = page.post("events", purchase(new_web_id(), properties={"amount": "x"}))
    assert response.status_code == 200


def test_a_flood_from_one_address_is_429(page, settings):
    settings.WEB_IP_RATE_LIMIT = 3
    statuses = [page.visit(new_web_id()).status_code for _ in range(5)]
    assert statuses[:3] == [201, 201, 201] and statuses[3:] == [429, 429]


def test_another_origin_is_403_and_reads_nothing(page):
    response = page.post("visits", {"web_id": new_web_id()}, origin="https://evil.example")
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response
    assert "origin" in response.json()["error"]["details"]


def test_a_call_without_an_origin_is_refused(page):
    response = page.client.post(f"/api/v1/web/visits?key={page.key}", "{}",
                                content_type="text/plain")
    assert response.status_code == 403


def test_a_server_key_is_refused_on_the_web_endpoints(web_app):
    server = Page(issue_key(web_app))
    response = server.visit(new_web_id())
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.parametrize("key", ["", "ak_0123456789abcdef_nope", "garbage"])
def test_a_bad_key_is_401_and_says_so_to_the_page(web_app, key):
    response = Page(key or "x").post("visits", {}, key=key or None)
    assert response.status_code == 401
    assert response["Access-Control-Allow-Origin"] == ORIGIN


def test_a_revoked_web_key_is_401(owner_api, page, web_key):
    owner_api.delete(f"/api/v1/keys/{web_key.split('_')[1]}")
    assert page.visit(new_web_id()).status_code == 401


def test_a_preflight_is_answered_for_the_keys_origins_only(page):
    ok = page.client.options(f"/api/v1/web/visits?key={page.key}", HTTP_ORIGIN=ORIGIN,
                             HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert ok.status_code == 204
    assert ok["Access-Control-Allow-Origin"] == ORIGIN
    assert "POST" in ok["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Credentials" not in ok
    other = page.client.options(f"/api/v1/web/visits?key={page.key}",
                                HTTP_ORIGIN="https://evil.example",
                                HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert other.status_code == 403 and "Access-Control-Allow-Origin" not in other


def test_other_methods_are_405_with_allow(page):
    response = page.client.delete(f"/api/v1/web/visits?key={page.key}", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 405 and "POST" in response["Allow"]


def test_the_answer_varies_by_origin_and_never_allows_credentials(page):
    response = page.visit(new_web_id())
    assert response["Vary"] == "Origin"
    assert "Access-Control-Allow-Credentials" not in response
