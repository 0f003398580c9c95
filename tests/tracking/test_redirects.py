"""Redirect targets: pure, no database."""

import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from tracking.redirects import (
    redirect_target,
    safe_redirect_url,
    store_target,
    with_play_referrer,
)


@pytest.mark.parametrize("value,safe", [
    ("https://example.com/landing?x=1", True),
    ("http://example.com", True),
    ("javascript:alert(1)", False),
    ("data:text/html,hi", False),
    ("//evil.example.com/path", False),
    ("https://example.com/\r\nSet-Cookie: x=1", False),
    ("https:///nohost", False),
    ("ftp://example.com/file", False),
    ("https://exa mple.com", False),
    ("https:\\\\evil.com", False),
    ("", False),
    (None, False),
])
def test_only_absolute_http_urls_are_followed(value, safe):
    assert (safe_redirect_url(value) is not None) is safe


@pytest.mark.parametrize("device,app_platform,expected", [
    ("ios", "ios", "A"), ("android", "ios", "P"), ("other", "ios", "A"),
    ("other", "android", "P"), ("ios", "web", "https://app.example.com/"),
])
def test_store_target_follows_the_device_then_the_app(device, app_platform, expected):
    assert store_target(device_platform=device, app_platform=app_platform, app_store_url="A",
                        play_store_url="P", domain="app.example.com") == expected


def test_play_store_targets_carry_the_click_in_the_referrer():
    click_id = uuid.uuid4()
    url = with_play_referrer("https://play.google.com/store/apps/details?id=x&referrer=old",
                             click_id=click_id, media_source="fb", campaign_id="c")
    query = parse_qs(urlsplit(url).query)
    assert query["id"] == ["x"]
    assert parse_qs(query["referrer"][0]) == {"click_id": [str(click_id)], "pid": ["fb"],
                                              "c": ["c"]}


@pytest.mark.parametrize(("url", "expected"), [
    ("https://play.google.com/store/apps/details",
     "https://play.google.com/store/apps/details?referrer={r}"),
    ("https://play.google.com/store/apps/details?id=a%20b&hl=en#top",
     "https://play.google.com/store/apps/details?id=a+b&hl=en&referrer={r}#top"),
])
def test_the_referrer_goes_last_in_the_query_before_any_fragment(url, expected):
    click_id = uuid.UUID("01a20225-504b-7fb6-a89f-8dc4963520d3")
    referrer = "click_id%3D01a20225-504b-7fb6-a89f-8dc4963520d3%26pid%3Dfb%26c%3Dc"
    assert with_play_referrer(url, click_id=click_id, media_source="fb",
                              campaign_id="c") == expected.format(r=referrer)


def test_other_targets_are_left_alone():
    assert with_play_referrer("https://apps.apple.com/app/id1", click_id=uuid.uuid4(),
                              media_source="", campaign_id="") == "https://apps.apple.com/app/id1"


@pytest.mark.parametrize("url", [
    "https://play.google.com/store/apps/details?id=com.acme.app",
    "https://play.google.com/store/apps/details?id=x&referrer=old&hl=de",
    "https://play.google.com/store/apps/details?id=x&utm_source=a+b&e=%C3%A9#top",
    "https://PLAY.google.com/store/apps/details",
    "https://play.google.com:443/store/apps/details?#frag",
    "market.android.com/details?id=x",
    "https://example.com/?id=x",
])
def test_the_play_referrer_is_what_re_encoding_the_whole_url_gives(url):
    """The referrer is appended to a cached split of the store URL; the result is exactly the
    URL re-encoded with the referrer as its last parameter."""
    from urllib.parse import parse_qsl, urlencode, urlunsplit

    from tracking.redirects import PLAY_HOSTS
    from tracking.referrer import store_referrer

    click_id = uuid.uuid4()
    parts = urlsplit(url)
    if (parts.hostname or "").lower() in PLAY_HOSTS:
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                 if k != "referrer"]
        query.append(("referrer", store_referrer(click_id=click_id, media_source="fb a",
                                                 campaign_id="c&1")))
        expected = urlunsplit(parts._replace(query=urlencode(query)))
    else:
        expected = url
    assert with_play_referrer(url, click_id=click_id, media_source="fb a",
                              campaign_id="c&1") == expected


class App:
    platform = "android"
    app_store_url = "https://apps.apple.com/app/id1"
    play_store_url = "https://play.google.com/store/apps/details?id=x"
    domain = None


DEFAULTS = {"ios": "https://apps.apple.com/", "other": "https://play.google.com/store/apps"}


def target(**overrides):
    values = dict(redirect_url=None, device_platform="android", app=App(), defaults=DEFAULTS,
                  click_id=None, media_source="fb", campaign_id="c")
    values.update(overrides)
    return redirect_target(**values)


def test_the_links_own_url_comes_first_then_the_apps_store_then_the_default():
    assert target(redirect_url="https://example.com/x") == "https://example.com/x"
    assert target(redirect_url="javascript:alert(1)") == App.play_store_url
    assert target(device_platform="ios") == App.app_store_url
    assert target(app=None, device_platform="ios") == "https://apps.apple.com/"
    assert target(app=None) == "https://play.google.com/store/apps"


def test_a_recorded_click_is_named_in_whichever_play_store_target_wins():
    click_id = uuid.uuid4()
    for url in (target(click_id=click_id), target(app=None, click_id=click_id)):
        referrer = parse_qs(urlsplit(url).query)["referrer"][0]
        assert parse_qs(referrer)["click_id"] == [str(click_id)]
    assert target(device_platform="ios", click_id=click_id) == App.app_store_url


def test_a_web_page_gets_the_click_id_and_a_store_does_not():
    import uuid as _uuid

    from tracking.redirects import with_web_click_id

    click = _uuid.UUID(int=7)
    assert with_web_click_id("https://shop.example/p?a=1&attribution_click_id=old#top",
                             click_id=click) == (
        f"https://shop.example/p?a=1&attribution_click_id={click}#top")
    for store in ("https://apps.apple.com/app/id1", "https://play.google.com/store/apps/x",
                  "myapp://open"):
        assert with_web_click_id(store, click_id=click) == store
