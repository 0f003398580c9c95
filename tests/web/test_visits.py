"""POST /api/v1/web/visits: a web id's first visit is the web app's install, attributed by
click id, UTM, click parameter or as organic; later visits are sessions or re-engagements
(docs/web.md, "Attribution")."""

from __future__ import annotations

import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.web.helpers import ORIGIN, new_web_id
from tracking.models import Install, Reengagement
from web.models import Visit, WebId

pytestmark = pytest.mark.django_db


def click_of(client, app, **params) -> str:
    """A click through the redirector; the click id its landing URL carries."""
    query = "&".join(f"{k}={v}" for k, v in {"app_id": app.id, **params}.items())
    response = client.get(f"/api/v1/clicks?{query}")
    assert response.status_code == 302
    landing = response["Location"]
    assert landing.startswith("https://shop.example/")
    return parse_qs(urlsplit(landing).query)["attribution_click_id"][0]


def attribution_of(response) -> dict:
    return response.json()["data"]["attribution"]


def test_a_visit_from_a_click_is_an_install_credited_to_that_click(client, page, web_app):
    click_id = click_of(client, web_app, pid="newsletter", c="spring")
    web_id = new_web_id()
    response = page.visit(web_id, url=f"{ORIGIN}/?attribution_click_id={click_id}",
                          attribution_click_id=click_id)
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    data = response.json()["data"]
    assert data == {"webId": web_id, "isNew": True, "attribution": {
        "mediaSource": "newsletter", "campaignId": "spring", "matchType": "click_id",
        "isOrganic": False}}
    install = Install.objects.get(app_id=web_app.id, device_id=web_id)
    assert install.platform == "web" and install.match_type == "click_id"
    assert install.confidence == 100 and str(install.click_id) == click_id
    assert install.decision["method"] == "click_id"


def test_a_utm_visit_is_credited_to_its_source_and_campaign(page, web_app):
    response = page.visit(new_web_id(), utm_source="google", utm_campaign="brand",
                          utm_medium="cpc")
    assert attribution_of(response) == {"mediaSource": "google", "campaignId": "brand",
                                        "matchType": "utm", "isOrganic": False}


@pytest.mark.parametrize(("param", "media_source"), [
    ("gclid", "google"), ("fbclid", "meta"), ("ttclid", "tiktok")])
def test_an_ad_click_parameter_names_its_network(page, param, media_source):
    response = page.visit(new_web_id(), **{param: "abc123"})
    assert attribution_of(response) == {"mediaSource": media_source, "campaignId": None,
                                        "matchType": "click_param", "isOrganic": False}


def test_a_click_of_another_app_falls_through_to_utm(client, page, owner, web_app):
    from tests.factories import AppFactory

    other = AppFactory(organization=owner.organization, platform="web", domain="other.example",
                       package_name=None, play_store_url=None, app_store_url=None)
    query = f"app_id={other.id}&pid=x"
    other_click = parse_qs(urlsplit(client.get(f"/api/v1/clicks?{query}")["Location"]).query)[
        "attribution_click_id"][0]
    response = page.visit(new_web_id(), attribution_click_id=other_click, utm_source="mail")
    assert attribution_of(response)["matchType"] == "utm"


def test_a_visit_with_nothing_is_organic_and_keeps_its_referrer_host(page, web_app):
    web_id = new_web_id()
    response = page.visit(web_id, referrer="https://news.example/story?id=1")
    assert attribution_of(response) == {"mediaSource": None, "campaignId": None,
                                        "matchType": "organic", "isOrganic": True}
    web = WebId.objects.get(app_id=web_app.id, web_id=web_id)
    assert web.referrer_host == "news.example" and web.landing_url == f"{ORIGIN}/"


def test_a_later_visit_is_a_session_and_keeps_the_install(page, web_app):
    web_id = new_web_id()
    page.visit(web_id, utm_source="google", utm_campaign="brand")
    again = page.visit(web_id)
    assert again.status_code == 200
    assert again.json()["data"]["isNew"] is False
    assert attribution_of(again)["mediaSource"] == "google"
    assert Install.objects.filter(app_id=web_app.id).count() == 1
    assert Visit.objects.filter(web_id=web_id).count() == 2


def test_a_later_paid_visit_is_a_reengagement(client, page, web_app):
    web_id = new_web_id()
    page.visit(web_id)
    click_id = click_of(client, web_app, pid="retarget", c="winback")
    again = page.visit(web_id, attribution_click_id=click_id)
    assert again.json()["data"]["isNew"] is False
    assert attribution_of(again) == {"mediaSource": "retarget", "campaignId": "winback",
                                     "matchType": "click_id", "isOrganic": False}
    reengagement = Reengagement.objects.get(install__device_id=web_id)
    assert str(reengagement.click_id) == click_id
    utm = page.visit(web_id, utm_source="mail", utm_campaign="june")
    assert attribution_of(utm)["mediaSource"] == "mail"
    assert Reengagement.objects.filter(install__device_id=web_id).count() == 2


def test_the_same_visit_twice_is_recorded_once_and_answered_alike(page, web_app):
    body = {"web_id": new_web_id(), "visit_id": str(uuid.uuid4()),
            "timestamp": 1_765_000_000_000, "url": f"{ORIGIN}/", "referrer": "",
            "utm_source": "google"}
    first, second = page.post("visits", body), page.post("visits", body)
    assert first.json()["data"] == second.json()["data"]
    assert second.json()["data"]["isNew"] is True
    assert Visit.objects.filter(visit_id=body["visit_id"]).count() == 1


def test_visit_consent_and_gpc_are_recorded_as_the_apps_consent(page, web_app):
    from consent.models import ConsentRecord

    web_id = new_web_id()
    page.visit(web_id, consent={"ad_user_data": True, "ad_personalization": None}, gpc=True)
    row = ConsentRecord.objects.get(app_id=web_app.id, device_id=web_id)
    assert row.ad_user_data is True and row.ad_personalization is False
    assert row.sharing_filter == "all"
    assert row.install_id == Install.objects.get(device_id=web_id).id


def test_application_json_is_taken_too(page):
    response = page.post("visits", {"web_id": new_web_id(), "visit_id": str(uuid.uuid4()),
                                    "timestamp": 1_765_000_000_000, "url": f"{ORIGIN}/",
                                    "referrer": ""}, content_type="application/json")
    assert response.status_code == 201


def test_a_browser_clock_behind_ours_keeps_the_click_its_url_names(client, page, web_app):
    click_id = click_of(client, web_app, pid="newsletter", c="autumn")
    behind = int(time.time() * 1000) - 5_000
    first = page.visit(new_web_id(), attribution_click_id=click_id, timestamp=behind)
    assert attribution_of(first) == {"mediaSource": "newsletter", "campaignId": "autumn",
                                     "matchType": "click_id", "isOrganic": False}
    web_id = new_web_id()
    page.visit(web_id)
    later = click_of(client, web_app, pid="retarget", c="winback")
    again = page.visit(web_id, attribution_click_id=later, timestamp=int(time.time() * 1000) - 2)
    assert attribution_of(again)["matchType"] == "click_id"
    assert str(Reengagement.objects.get(install__device_id=web_id).click_id) == later
