"""The web-to-app journey through the API: a visit from a source, the banner's short link
followed from an Android phone, the app install it brings (deep link, web block), identify's
customer join, and the web-to-app report."""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import urlencode, urlsplit

import pytest
from rest_framework.test import APIClient

from tests.factories import issue_key
from tests.tracking.helpers import ANDROID_BROWSER, ANDROID_SDK, PUBLIC_IP, install_body
from tests.web_to_app.helpers import ORIGIN
from tracking.models import Click, Install
from web_to_app.models import WebClick

pytestmark = pytest.mark.django_db

WEB_ID = "5f0c7d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"


def web_post(client, key, path, body):
    return client.post(f"/api/v1/web/{path}?key={key}", json.dumps(body),
                       content_type="text/plain;charset=UTF-8", HTTP_ORIGIN=ORIGIN,
                       HTTP_USER_AGENT=ANDROID_BROWSER, REMOTE_ADDR="198.51.100.9")


def visit(client, key, *, web_id=WEB_ID, query="utm_source=google&utm_campaign=summer"):
    response = web_post(client, key, "visits", {
        "web_id": web_id, "visit_id": str(uuid.uuid4()), "timestamp": int(time.time() * 1000),
        "url": f"https://shop.example/shoes/red?{query}", "referrer": "",
        **dict(pair.split("=") for pair in query.split("&") if pair), "sdk_version": "1.0.0"})
    assert response.status_code in (200, 201), response.json()
    return response.json()["data"]


def banner_link(client, key, *, web_id=WEB_ID) -> str:
    response = client.get("/api/v1/web/banner", {"key": key, "web_id": web_id},
                          HTTP_ORIGIN=ORIGIN, HTTP_USER_AGENT=ANDROID_BROWSER)
    return response.json()["data"]["link"]


def follow(client, link, **params):
    """The banner's button, as the script builds its URL."""
    url = urlsplit(link)
    return client.get(f"{url.path}?{urlencode(params)}", HTTP_USER_AGENT=ANDROID_BROWSER,
                      REMOTE_ADDR=PUBLIC_IP)


def app_install(app, **overrides):
    sdk = APIClient()
    sdk.credentials(HTTP_X_API_KEY=issue_key(app))
    response = sdk.post("/api/v1/installs", install_body(app, **overrides), format="json",
                        HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)
    assert response.status_code == 201, response.json()
    return response.json()["data"]


@pytest.fixture
def page(client, web_key, banner):
    """A page of the shop that was visited from Google's summer campaign."""
    assert visit(client, web_key)["attribution"]["mediaSource"] == "google"
    return client


def test_the_banners_click_credits_web_banner_and_the_install_gets_the_deep_link_and_journey(
        page, web_key, android_app, owner_api):
    link = banner_link(page, web_key)
    response = follow(page, link, web_id=WEB_ID, web_via="banner", pid="web_banner",
                      deep_link_value="product/shoes/red")
    assert response.status_code == 302
    assert response["Location"].startswith("https://play.google.com/")
    click = Click.objects.get(app_id=android_app.id)
    assert (click.media_source, click.campaign_id) == ("web_banner", "")
    journey = WebClick.objects.get()
    assert (journey.web_id, journey.via, journey.visit_media_source, journey.visit_campaign) == (
        WEB_ID, "banner", "google", "summer")

    answer = app_install(android_app)
    assert (answer["mediaSource"], answer["isOrganic"]) == ("web_banner", False)
    assert answer["deepLink"]["value"] == "product/shoes/red"
    detail = owner_api.get(f"/api/v1/installs/{answer['installId']}").json()["data"]["install"]
    assert detail["web"] == {"web_id": WEB_ID, "visit_media_source": "google",
                             "visit_campaign": "summer", "web_app_id": str(journey.web_app_id),
                             "via": "banner", "joined_by": "click",
                             "landing_url": None, "referrer_host": None}


def test_carrying_the_visits_source_credits_it(page, web_key, android_app):
    follow(page, banner_link(page, web_key), web_id=WEB_ID, web_via="banner", pid="google",
           c="summer", deep_link_value="product/x")
    answer = app_install(android_app)
    assert (answer["mediaSource"], answer["campaignId"]) == ("google", "summer")


def test_an_ordinary_click_of_the_link_ignores_pid_without_web_via(page, web_key, android_app):
    follow(page, banner_link(page, web_key), pid="google", c="summer",
           deep_link_value="product/x")
    assert Click.objects.get().media_source == "web_banner"
    assert not WebClick.objects.exists()
    assert app_install(android_app)["deepLink"]["value"] is None


def test_a_bad_web_id_makes_an_ordinary_click(page, web_key):
    follow(page, banner_link(page, web_key), web_id="nope", web_via="banner", pid="google")
    assert Click.objects.get().media_source == "web_banner" and not WebClick.objects.exists()


def test_a_customer_identified_on_the_site_joins_the_app_install(page, web_key, ios_app,
                                                                 owner_api, linked):
    assert web_post(page, web_key, "identify", {
        "web_id": WEB_ID, "customer_user_id": "cust-7"}).status_code in (200, 201, 202)
    answer = app_install(ios_app, platform="ios", customer_user_id="cust-7")
    assert answer["isOrganic"] is True
    detail = owner_api.get(f"/api/v1/installs/{answer['installId']}").json()["data"]["install"]
    assert detail["web"] == {"web_id": WEB_ID, "visit_media_source": "google",
                             "visit_campaign": "summer", "web_app_id": str(linked.id),
                             "joined_by": "customer_user_id",
                             "landing_url": None, "referrer_host": None}
    report = owner_api.get(f"/api/v1/analytics/web-to-app?app_id={linked.id}").json()["data"]
    assert report["total"]["installs_joined_by_customer_id"] == 1
    assert report["by_visit_source"][0]["visit_media_source"] == "google"


def test_an_install_without_a_web_journey_has_no_web_block(owner_api, android_app, linked):
    answer = app_install(android_app, customer_user_id="someone")
    detail = owner_api.get(f"/api/v1/installs/{answer['installId']}").json()["data"]["install"]
    assert "web" not in detail


def test_the_report_counts_views_clicks_dismissals_and_installs_by_visit_source(
        page, web_key, android_app, owner_api, linked):
    for kind in ("view", "view", "click", "dismiss"):
        web_post(page, web_key, "banner-events", {
            "web_id": WEB_ID, "kind": kind, "event_id": str(uuid.uuid4()),
            "timestamp": int(time.time() * 1000)})
    organic_id = "6f0c7d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"
    visit(page, web_key, web_id=organic_id, query="")
    web_post(page, web_key, "banner-events", {"web_id": organic_id, "kind": "view",
                                              "event_id": str(uuid.uuid4()),
                                              "timestamp": int(time.time() * 1000)})
    follow(page, banner_link(page, web_key), web_id=WEB_ID, web_via="banner", pid="web_banner")
    app_install(android_app)
    report = owner_api.get(f"/api/v1/analytics/web-to-app?app_id={linked.id}").json()["data"]
    assert report["total"] == {"banner_views": 3, "banner_clicks": 1, "banner_dismissals": 1,
                               "installs_from_banner": 1, "installs_joined_by_customer_id": 0,
                               "click_rate": 0.3333, "install_rate": 1.0}
    google, organic = report["by_visit_source"]
    assert (google["visit_media_source"], google["banner_views"],
            google["installs_from_banner"]) == ("google", 2, 1)
    assert (organic["visit_media_source"], organic["banner_views"]) == ("organic", 1)
    assert Install.objects.get(app_id=android_app.id).media_source == "web_banner"


@pytest.mark.parametrize("query,field", [("", "app_id"), ("app_id=nope", "app_id"),
                                         ("start_date=2026-13-01", "start_date")])
def test_the_report_refuses_bad_parameters(owner_api, linked, query, field):
    if "start_date" in query:
        query += f"&app_id={linked.id}"
    response = owner_api.get(f"/api/v1/analytics/web-to-app?{query}")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_the_report_is_for_web_apps_of_the_callers_organization(owner_api, outsider_api,
                                                               android_app, linked):
    response = owner_api.get(f"/api/v1/analytics/web-to-app?app_id={android_app.id}")
    assert response.status_code == 400
    assert outsider_api.get(f"/api/v1/analytics/web-to-app?app_id={linked.id}"
                            ).status_code == 404
