"""links/routing.py: where a link sends each device, and which visitors are browsers, in-app
browsers or crawlers. Pure: no database."""

import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest

from links import routing
from links.follow import visitor_kind
from tests.links.visitors import (
    ANDROID_CHROME,
    CRAWLERS,
    DESKTOP_CHROME,
    IN_APP_BROWSERS,
    IPHONE_SAFARI,
)

DEFAULTS = {"ios": "https://apps.apple.com/", "android": "https://play.google.com/store/apps",
            "other": "https://play.google.com/store/apps"}
APP = SimpleNamespace(platform="android", app_store_url="https://apps.apple.com/app/id1",
                      play_store_url="https://play.google.com/store/apps/details?id=com.x",
                      domain="x.example.com")
NO_STORES = SimpleNamespace(platform="android", app_store_url=None, play_store_url=None,
                            domain=None)
CLICK = uuid.UUID("0190e0a0-0000-7000-8000-000000000001")


def link(ios_url=None, android_url=None, web_url=None):
    return SimpleNamespace(ios_url=ios_url, android_url=android_url, web_url=web_url)


def target(device, link_, app=APP, click_id=None):
    return routing.link_target(device_platform=device, link=link_, app=app, defaults=DEFAULTS,
                               click_id=click_id, media_source="instagram", campaign_id="c1")


def referrer_of(url):
    return parse_qs(parse_qs(urlsplit(url).query)["referrer"][0])


def test_iphone_goes_to_the_links_ios_destination():
    assert target("ios", link(ios_url="https://x.example.com/ios")).url == (
        "https://x.example.com/ios")


def test_iphone_without_an_ios_destination_goes_to_the_app_store():
    assert target("ios", link(web_url="https://x.example.com/w")).url == APP.app_store_url


def test_android_goes_to_its_destination_and_without_one_to_the_play_store():
    assert target("android", link(android_url="https://x.example.com/a")).url == (
        "https://x.example.com/a")
    assert target("android", link()).url == APP.play_store_url


def test_the_play_store_names_the_recorded_click_in_its_referrer():
    destination = target("android", link(), click_id=CLICK)
    assert destination.carries_click
    assert referrer_of(destination.url) == {"click_id": [str(CLICK)], "pid": ["instagram"],
                                            "c": ["c1"]}


def test_an_android_destination_on_the_play_store_also_gets_the_referrer():
    own = "https://play.google.com/store/apps/details?id=com.x&referrer=theirs"
    destination = target("android", link(android_url=own), click_id=CLICK)
    assert referrer_of(destination.url)["click_id"] == [str(CLICK)]
    assert destination.url.startswith("https://play.google.com/store/apps/details?id=com.x&")


def test_a_destination_elsewhere_carries_no_referrer():
    destination = target("ios", link(ios_url="https://x.example.com/i"), click_id=CLICK)
    assert destination == routing.Destination("https://x.example.com/i", carries_click=False)


def test_a_web_apps_page_names_the_recorded_click_for_the_web_script():
    web_app = SimpleNamespace(platform="web", app_store_url=None, play_store_url=None,
                              domain="shop.example")
    destination = target("other", link(web_url="https://shop.example/p?a=1"), app=web_app,
                         click_id=CLICK)
    assert destination == routing.Destination(
        f"https://shop.example/p?a=1&attribution_click_id={CLICK}", carries_click=True)


def test_a_mobile_apps_web_destination_is_followed_as_given():
    destination = target("other", link(web_url="https://x.example.com/w"), click_id=CLICK)
    assert destination == routing.Destination("https://x.example.com/w", carries_click=False)


def test_desktop_goes_to_the_web_destination_then_the_domain_then_the_store():
    assert target("other", link(web_url="https://x.example.com/w")).url == (
        "https://x.example.com/w")
    assert target("other", link()).url == "https://x.example.com/"
    assert target("other", link(), app=SimpleNamespace(**{**vars(APP), "domain": None})).url == (
        APP.play_store_url)


def test_an_app_without_any_store_falls_back_to_the_default_store():
    assert target("ios", link(), app=NO_STORES).url == DEFAULTS["ios"]


def test_a_redirect_never_goes_to_an_app_scheme_or_script():
    assert target("ios", link(ios_url="myapp://product/1")).url == APP.app_store_url
    assert target("other", link(web_url="javascript:alert(1)")).url == "https://x.example.com/"


def test_the_app_scheme_destination_is_offered_as_the_open_in_app_button():
    assert routing.app_open_url(device_platform="ios", link=link(ios_url="myapp://p/1"),
                                url_scheme="myapp") == "myapp://p/1"
    assert routing.app_open_url(device_platform="ios", link=link(ios_url="other://p/1"),
                                url_scheme="myapp") is None
    assert routing.app_open_url(device_platform="ios", link=link(ios_url="javascript://x"),
                                url_scheme="javascript") is None
    assert routing.app_open_url(device_platform="other", link=link(ios_url="myapp://p/1"),
                                url_scheme="myapp") is None
    assert routing.app_open_url(device_platform="ios", link=link(ios_url="https://x.example"),
                                url_scheme="myapp") is None


def test_link_state_active_expired_inactive():
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert routing.link_state(active=True, expires_at=None, now=now) == routing.LIVE
    assert routing.link_state(active=True, expires_at=now + timedelta(seconds=1),
                              now=now) == routing.LIVE
    assert routing.link_state(active=True, expires_at=now, now=now) == routing.EXPIRED
    assert routing.link_state(active=False, expires_at=None, now=now) == routing.INACTIVE


@pytest.mark.parametrize("name", IN_APP_BROWSERS)
def test_in_app_browsers_are_recognized(name):
    assert visitor_kind(IN_APP_BROWSERS[name]) == routing.IN_APP_BROWSER


@pytest.mark.parametrize("name", CRAWLERS)
def test_link_preview_crawlers_are_recognized(name):
    assert visitor_kind(CRAWLERS[name]) == routing.CRAWLER


@pytest.mark.parametrize("user_agent", [IPHONE_SAFARI, ANDROID_CHROME, DESKTOP_CHROME, ""])
def test_ordinary_browsers_are_browsers(user_agent):
    assert visitor_kind(user_agent) == routing.BROWSER
