"""The reference's click endpoint and install waterfall: each match type, the window's
tie-break, the redirect order, and the install's errors, on a fresh app with default settings.
The install follows its click a second later, as in the reference's own story."""

import time
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.contract.helpers import (
    IPHONE_BROWSER,
    PUBLIC_IP,
    AppWithKey,
    Caller,
    android_app,
    click,
    data,
    device,
    error,
    install,
    sign_up,
)


def test_a_click_then_its_install_a_second_later_is_attributed_by_device_id(owner, android):
    gaid = device()
    before = int(time.time() * 1000)
    click(owner.caller, android.id, pid="facebook", c="summer", af_adset="s1", af_ad="a1",
          advertising_id=gaid)
    time.sleep(1)
    answer = data(install(owner.caller, android, device_id=gaid), 201)
    assert answer["matchType"] == "device_id"
    assert 95 <= answer["confidence"] <= 100
    assert (answer["mediaSource"], answer["campaignId"], answer["isOrganic"]) == (
        "facebook", "summer", False)
    assert before - 1000 <= answer["attributedTouchTime"] <= int(time.time() * 1000)


def test_the_install_referrer_names_the_click(owner, android):
    answer = click(owner.caller, android.id, pid="google", c="brand")
    target = urlsplit(answer.headers["Location"])
    assert target.netloc == "play.google.com"
    [referrer] = parse_qs(target.query)["referrer"]
    time.sleep(1)
    attributed = data(install(owner.caller, android, install_referrer=referrer), 201)
    assert (attributed["matchType"], attributed["confidence"]) == ("install_referrer", 100)
    assert (attributed["mediaSource"], attributed["campaignId"], attributed["isOrganic"]) == (
        "google", "brand", False)


def test_the_same_phone_without_an_id_is_matched_by_its_fingerprint(owner, android):
    click(owner.caller, android.id, pid="tiktok", c="spring")
    time.sleep(1)
    answer = data(install(owner.caller, android, os_version="14", device_model="Pixel 8",
                          language="en-US", timezone="Europe/Berlin",
                          screen_resolution="1080x2400"), 201)
    assert answer["matchType"] == "fingerprint"
    assert 60 <= answer["confidence"] <= 80
    assert (answer["mediaSource"], answer["campaignId"], answer["isOrganic"]) == (
        "tiktok", "spring", False)


def test_an_install_without_a_click_in_the_window_is_organic(owner, android):
    answer = data(install(owner.caller, android, device_id=device(), ip="81.2.70.9"), 201)
    assert answer["matchType"] == "organic" and answer["isOrganic"] is True
    assert answer["mediaSource"] is None and answer["campaignId"] is None
    assert answer["attributedTouchTime"] is None


def test_of_two_networks_clicks_on_one_device_the_later_wins(owner, android):
    gaid = device()
    click(owner.caller, android.id, pid="network_a", c="first", advertising_id=gaid)
    time.sleep(0.05)
    click(owner.caller, android.id, pid="network_b", c="second", advertising_id=gaid)
    time.sleep(1)
    answer = data(install(owner.caller, android, device_id=gaid), 201)
    assert (answer["matchType"], answer["mediaSource"], answer["campaignId"]) == (
        "device_id", "network_b", "second")


def test_the_device_id_tier_outranks_a_fingerprint(owner, android):
    gaid = device()
    click(owner.caller, android.id, pid="by_fingerprint", c="x")
    click(owner.caller, android.id, pid="by_device", c="y", advertising_id=gaid,
          ip="81.2.71.10")
    time.sleep(1)
    answer = data(install(owner.caller, android, device_id=gaid, os_version="14",
                          device_model="Pixel 8", language="en-US"), 201)
    assert (answer["matchType"], answer["mediaSource"]) == ("device_id", "by_device")


def test_clicks_redirect_in_the_references_order_and_never_fail(owner, android):
    caller = owner.caller
    custom = click(caller, android.id, redirect_url="https://shop.example/landing")
    assert custom.headers["Location"].startswith("https://shop.example/landing")
    iphone = click(caller, android.id, user_agent=IPHONE_BROWSER)
    assert iphone.headers["Location"].startswith(android.app["app_store_url"])
    phone = click(caller, android.id)
    assert phone.headers["Location"].startswith(android.app["play_store_url"])
    for app_id in ("00000000-0000-0000-0000-000000000000", "not-an-id", ""):
        unknown = caller.get("clicks", params={"app_id": app_id, "pid": "x"})
        assert unknown.status_code == 302 and unknown.headers["Location"].startswith("https://")
    assert caller.get("clicks").status_code == 302


def test_an_install_with_another_apps_key_is_403_a_bad_key_401_a_bad_body_400(service, owner,
                                                                          android):
    other = android_app(owner)
    wrong_app = AppWithKey(android.id, other.key, android.app)
    error(install(owner.caller, wrong_app, device_id=device()), 403, "FORBIDDEN")
    error(install(owner.caller, AppWithKey(android.id, "ak_nope_nope", android.app),
                  device_id=device()), 401, "UNAUTHORIZED")
    missing = Caller(service).post("installs", {"app_id": android.id, "platform": "android"},
                                   key=android.key)
    assert "sdk_version" in error(missing, 400, "VALIDATION_ERROR")["details"]
    no_key = Caller(service).post("installs", {"app_id": android.id, "platform": "android",
                                               "sdk_version": "1"})
    error(no_key, 401, "UNAUTHORIZED")


@pytest.mark.parametrize("platform", ["ios", "web"])
def test_an_android_apps_install_must_say_android(owner, android, platform):
    answer = install(owner.caller, android, device_id=device(), platform=platform)
    assert "platform" in error(answer, 400, "VALIDATION_ERROR")["details"]


def test_another_organization_reads_nothing_of_an_apps_installs(service, owner, android):
    data(install(owner.caller, android, device_id=device()), 201)
    stranger = sign_up(service)
    answer = stranger.caller.get("analytics/dashboard", params={
        "app_id": android.id, "start_date": datetime.now(UTC).date().isoformat(),
        "end_date": datetime.now(UTC).date().isoformat()})
    assert answer.status_code in (403, 404), answer.text
    assert answer.json()["success"] is False
    assert PUBLIC_IP not in answer.text
