"""Deferred deep links: an install attributed to a click that came through a short link
answers with the link's deep link ({value, params, link_id}) on its first launch and on every
repeat, whatever happens to the link afterwards; any other install answers null."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from links.models import Link
from tests.tracking.helpers import ANDROID_BROWSER, ANDROID_SDK, PUBLIC_IP, install_body
from tracking.models import Install, Reengagement
from tracking.referrer import store_referrer
from tracking.services import ClickInput, click_record

pytestmark = pytest.mark.django_db

_codes = count(1)


@pytest.fixture
def sdk(sdk_key):
    """The app's SDK, holding its API key."""
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=sdk_key)
    return client


def make_link(app, **overrides) -> Link:
    values = {"app": app, "code": f"spring-{next(_codes)}", "media_source": "newsletter",
              "campaign_id": "spring", "deep_link_value": "product/42",
              "params": {"color": "red", "coupon": "SPRING10"}}
    values.update(overrides)
    return Link.objects.create(**values)


def follow(link, *, advertising_id=None, ip=PUBLIC_IP, user_agent=ANDROID_BROWSER,
           clicked_at=None):
    """A click recorded exactly as following the link records it."""
    return click_record(click=ClickInput(
        app_id=link.app_id, campaign_id=link.campaign_id, media_source=link.media_source,
        adset=link.adset, ad=link.ad, advertising_id=advertising_id, ip=ip,
        user_agent=user_agent, accept_language="en-US,en;q=0.9",
        clicked_at=clicked_at or timezone.now(), link_id=link.id))


def follow_plain_click(app, *, advertising_id):
    """A click through the spec's /clicks redirector: no link."""
    return click_record(click=ClickInput(
        app_id=app.id, campaign_id="c1", media_source="adnetwork", adset="", ad="",
        advertising_id=advertising_id, ip=PUBLIC_IP, user_agent=ANDROID_BROWSER,
        accept_language="en-US,en;q=0.9", clicked_at=timezone.now()))


def post_install(sdk, app, **overrides):
    return sdk.post("/api/v1/installs", install_body(app, **overrides), format="json",
                    HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)


def expected_payload(link) -> dict:
    return {"value": "product/42", "params": {"color": "red", "coupon": "SPRING10"},
            "link_id": str(link.id)}


def test_install_matched_by_device_id_to_a_link_click_answers_the_links_deep_link(sdk, app):
    link = make_link(app)
    click_id = follow(link, advertising_id="GAID-1")

    response = post_install(sdk, app, device_id="gaid-1")

    assert response.status_code == 201
    data = response.json()["data"]
    assert (data["matchType"], data["mediaSource"], data["campaignId"]) == (
        "device_id", "newsletter", "spring")
    assert data["deepLink"] == expected_payload(link)
    install = Install.objects.get(id=data["installId"])
    assert (install.click_id, install.link_id) == (click_id, link.id)
    assert install.deep_link == expected_payload(link)


def test_install_matched_by_fingerprint_only_to_a_link_click_answers_the_deep_link(sdk, app):
    link = make_link(app, deep_link_value="product/42")
    follow(link)  # no advertising id: only the network and the User-Agent's signals

    response = post_install(sdk, app, os_version="14", device_model="SM-S918B",
                            language="en-US")

    assert response.status_code == 201
    data = response.json()["data"]
    assert data["matchType"] == "fingerprint"
    assert data["deepLink"] == expected_payload(link)
    assert Install.objects.get(id=data["installId"]).link_id == link.id


def test_install_referrer_naming_a_link_click_answers_the_deep_link(sdk, app):
    link = make_link(app)
    click_id = follow(link, ip="203.0.113.9")  # another network: only the referrer can match
    referrer = store_referrer(click_id=click_id, media_source=link.media_source,
                              campaign_id=link.campaign_id)

    response = post_install(sdk, app, install_referrer=referrer, device_id="gaid-2")

    data = response.json()["data"]
    assert (response.status_code, data["matchType"]) == (201, "install_referrer")
    assert data["deepLink"] == expected_payload(link)


def test_organic_install_answers_a_null_deep_link(sdk, app):
    make_link(app)  # a link nobody followed

    response = post_install(sdk, app, device_id="gaid-3")

    data = response.json()["data"]
    assert (response.status_code, data["isOrganic"], data["deepLink"]) == (201, True, None)
    assert Install.objects.get(id=data["installId"]).deep_link is None


def test_install_from_a_click_without_a_link_answers_a_null_deep_link(sdk, app):
    follow_plain_click(app, advertising_id="gaid-4")

    data = post_install(sdk, app, device_id="gaid-4").json()["data"]

    assert (data["matchType"], data["mediaSource"], data["deepLink"]) == (
        "device_id", "adnetwork", None)


def test_referrer_naming_only_a_source_answers_a_null_deep_link(sdk, app):
    make_link(app, media_source="newsletter")

    data = post_install(sdk, app, install_referrer="pid=newsletter&c=spring",
                        device_id="gaid-5").json()["data"]

    assert (data["matchType"], data["mediaSource"], data["deepLink"]) == (
        "install_referrer", "newsletter", None)


def test_a_link_without_a_value_still_answers_its_params_and_id(sdk, app):
    link = make_link(app, deep_link_value="", params={})
    follow(link, advertising_id="gaid-6")

    data = post_install(sdk, app, device_id="gaid-6").json()["data"]

    assert data["deepLink"] == {"value": None, "params": {}, "link_id": str(link.id)}


def test_repeats_answer_the_same_deep_link_after_the_link_is_edited_or_deleted(sdk, app):
    link = make_link(app)
    answered = expected_payload(link)
    follow(link, advertising_id="gaid-7")
    first = post_install(sdk, app, device_id="gaid-7")

    Link.objects.filter(id=link.id).update(deep_link_value="product/99", params={"x": "y"})
    edited = post_install(sdk, app, device_id="gaid-7")
    link.delete()
    deleted = post_install(sdk, app, device_id="gaid-7")

    assert first.status_code == 201
    assert (edited.status_code, deleted.status_code) == (200, 200)
    assert first.json()["data"] == edited.json()["data"] == deleted.json()["data"]
    assert deleted.json()["data"]["deepLink"] == answered
    assert Install.objects.count() == 1


def test_repeats_of_an_organic_install_answer_null_too(sdk, app):
    post_install(sdk, app, device_id="gaid-8")
    repeat = post_install(sdk, app, device_id="gaid-8")
    assert (repeat.status_code, repeat.json()["data"]["deepLink"]) == (200, None)


def test_inactive_or_expired_link_still_gives_its_deep_link_to_the_install_it_brought(sdk, app):
    link = make_link(app)
    follow(link, advertising_id="gaid-9")
    Link.objects.filter(id=link.id).update(active=False,
                                           expires_at=timezone.now() - timedelta(minutes=1))

    data = post_install(sdk, app, device_id="gaid-9").json()["data"]

    assert data["deepLink"] == expected_payload(link)


def test_link_deleted_before_the_install_leaves_it_attributed_with_a_null_deep_link(sdk, app):
    link = make_link(app)
    follow(link, advertising_id="gaid-10")
    link_id = link.id
    link.delete()

    data = post_install(sdk, app, device_id="gaid-10").json()["data"]

    assert (data["mediaSource"], data["deepLink"]) == ("newsletter", None)
    assert Install.objects.get(id=data["installId"]).link_id == link_id


def test_reengagement_through_a_link_click_carries_that_links_deep_link(sdk, app):
    first_link = make_link(app)
    follow(first_link, advertising_id="gaid-11",
           clicked_at=timezone.now() - timedelta(minutes=10))
    post_install(sdk, app, device_id="gaid-11")
    comeback = make_link(app, media_source="email", campaign_id="winback",
                         deep_link_value="cart", params={"reminder": "1"})
    follow(comeback, advertising_id="gaid-11")

    response = post_install(sdk, app, device_id="gaid-11")

    data = response.json()["data"]
    assert response.status_code == 200
    assert data["deepLink"] == expected_payload(first_link)  # the install's, unchanged
    assert data["reengagement"]["mediaSource"] == "email"
    assert data["reengagement"]["deepLink"] == {"value": "cart", "params": {"reminder": "1"},
                                                "link_id": str(comeback.id)}
    assert Reengagement.objects.get().campaign_id == "winback"


def test_reengagement_through_a_plain_click_carries_a_null_deep_link(sdk, app):
    post_install(sdk, app, device_id="gaid-12")
    follow_plain_click(app, advertising_id="gaid-12")

    data = post_install(sdk, app, device_id="gaid-12").json()["data"]

    assert data["reengagement"]["deepLink"] is None


def test_installs_from_plain_clicks_read_nothing_of_links(sdk, app):
    follow_plain_click(app, advertising_id="gaid-13")
    with CaptureQueriesContext(connection) as queries:
        post_install(sdk, app, device_id="gaid-13")
    assert not [q for q in queries if "links_link" in q["sql"]]


def test_an_install_from_a_link_click_reads_the_link_once(sdk, app):
    follow(make_link(app), advertising_id="gaid-14")
    with CaptureQueriesContext(connection) as queries:
        post_install(sdk, app, device_id="gaid-14")
    assert len([q for q in queries if "links_link" in q["sql"]]) == 1


def test_the_dashboard_shows_an_installs_link_and_deep_link(sdk, app, owner_api):
    link = make_link(app)
    follow(link, advertising_id="gaid-15")
    install_id = post_install(sdk, app, device_id="gaid-15").json()["data"]["installId"]

    install = owner_api.get(f"/api/v1/installs/{install_id}").json()["data"]["install"]

    assert install["link_id"] == str(link.id)
    assert install["deep_link"] == expected_payload(link)


def test_tracking_without_the_links_reader_answers_null_for_a_link_click(sdk, app, monkeypatch):
    from tracking.services import clicks

    monkeypatch.setattr(clicks, "_deep_link_reader", None)
    link = make_link(app)
    follow(link, advertising_id="gaid-16")

    data = post_install(sdk, app, device_id="gaid-16").json()["data"]

    assert (data["mediaSource"], data["deepLink"]) == ("newsletter", None)
    assert Install.objects.get(id=data["installId"]).link_id == link.id
