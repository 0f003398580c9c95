"""Following a link on the service's host: GET /l/{code} records a click as /clicks does and
sends each visitor on; in-app browsers get the interstitial, crawlers the preview, dead codes
the fallback page."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from tests.links.visitors import (
    ANDROID_CHROME,
    CRAWLERS,
    DESKTOP_CHROME,
    IN_APP_BROWSERS,
    IPHONE_SAFARI,
    make_link,
)
from tracking.models import Click, ClickArchive

pytestmark = pytest.mark.django_db

PUBLIC_IP = "81.2.69.142"


def follow(client, code="summer", *, user_agent=ANDROID_CHROME, method="get", **query):
    return getattr(client, method)(f"/l/{code}", query, HTTP_USER_AGENT=user_agent,
                                   REMOTE_ADDR=PUBLIC_IP, HTTP_ACCEPT_LANGUAGE="en-US")


def referrer_of(url):
    return parse_qs(parse_qs(urlsplit(url).query)["referrer"][0])


def test_an_android_visitor_is_counted_and_sent_to_the_play_store_naming_the_click(client, app):
    link = make_link(app, adset="s1", ad="a1")
    response = follow(client, advertising_id="GAID-1234")
    assert response.status_code == 302
    assert response["Cache-Control"] == "no-store"
    click = Click.objects.get()
    assert ClickArchive.objects.get().id == click.id
    assert (click.link_id, click.app_id, click.media_source, click.campaign_id, click.adset,
            click.ad) == (link.id, app.id, "instagram", "summer-sale", "s1", "a1")
    assert click.advertising_id == "gaid-1234"
    assert click.ip == PUBLIC_IP and len(click.fingerprint) == 64
    assert response["Location"].startswith(app.play_store_url + "&referrer=")
    assert referrer_of(response["Location"]) == {
        "click_id": [str(click.id)], "pid": ["instagram"], "c": ["summer-sale"]}


def test_an_android_destination_is_followed_and_a_play_one_gets_the_referrer(client, app):
    make_link(app, android_url="https://shop.example.com/android")
    make_link(app, code="play", android_url="https://play.google.com/store/apps/details?id=x")
    assert follow(client)["Location"] == "https://shop.example.com/android"
    location = follow(client, "play")["Location"]
    assert referrer_of(location)["click_id"] == [str(Click.objects.latest("id").id)]


def test_an_iphone_goes_to_the_ios_destination_or_the_app_store(client, app):
    make_link(app, ios_url="https://shop.example.com/ios")
    make_link(app, code="plain")
    assert follow(client, user_agent=IPHONE_SAFARI)["Location"] == (
        "https://shop.example.com/ios")
    assert follow(client, "plain", user_agent=IPHONE_SAFARI)["Location"] == app.app_store_url
    assert Click.objects.count() == 2


def test_a_desktop_goes_to_the_web_destination_then_the_apps_domain(client, app):
    make_link(app, web_url="https://shop.example.com/")
    assert follow(client, user_agent=DESKTOP_CHROME)["Location"] == "https://shop.example.com/"
    app.domain = "app.example.com"
    app.save()
    make_link(app, code="nodesk")
    assert follow(client, "nodesk", user_agent=DESKTOP_CHROME)["Location"] == (
        "https://app.example.com/")


@pytest.mark.parametrize("code", ["nope", "bad code", "a%2Fb"])
def test_an_unknown_code_gets_the_fallback_page_and_no_click(client, app, code):
    response = follow(client, code)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "This link is no longer active" in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    assert "script-src" not in response["Content-Security-Policy"]
    assert "default-src 'none'" in response["Content-Security-Policy"]
    assert not Click.objects.exists()


def test_inactive_and_expired_links_point_to_the_apps_web_domain(client, app):
    app.domain = "app.example.com"
    app.save()
    make_link(app, code="off", active=False)
    make_link(app, code="old", expires_at=timezone.now() - timedelta(minutes=1))
    for code in ("off", "old"):
        response = follow(client, code)
        assert response.status_code == 404
        assert 'href="https://app.example.com/"' in response.content.decode()
    assert not Click.objects.exists()


def test_a_link_expiring_later_still_serves(client, app):
    make_link(app, expires_at=timezone.now() + timedelta(hours=1))
    assert follow(client).status_code == 302


def test_head_is_answered_like_get_but_not_counted(client, app):
    make_link(app)
    response = follow(client, method="head")
    assert response.status_code == 302
    assert response["Location"] == app.play_store_url
    assert not Click.objects.exists()


def test_other_paths_under_l_get_the_fallback_page(client):
    for path in ("/l/", "/l/a/b"):
        response = client.get(path)
        assert response.status_code == 404
        assert "This link is no longer active" in response.content.decode()


@pytest.mark.parametrize("name", IN_APP_BROWSERS)
def test_in_app_browsers_are_counted_and_get_the_interstitial(client, app, name):
    link = make_link(app)
    response = follow(client, user_agent=IN_APP_BROWSERS[name])
    assert response.status_code == 200
    body = response.content.decode()
    assert app.name in body
    click = Click.objects.get()
    assert click.link_id == link.id
    # The Open button is the destination a browser would have been redirected to.
    assert '<a id="open" href="' in body
    expected = app.app_store_url if "iPhone" in IN_APP_BROWSERS[name] else (
        app.play_store_url.replace("&", "&amp;") + "&amp;referrer=")
    assert f'href="{expected}' in body
    assert "<script" not in body and "style=" not in body
    assert response["Cache-Control"] == "no-store"
    assert "default-src 'none'" in response["Content-Security-Policy"]


def test_the_interstitial_offers_the_apps_own_scheme_destination(client, app):
    app.url_scheme = "myapp"
    app.save()
    make_link(app, ios_url="myapp://product/42")
    body = follow(client, user_agent=IN_APP_BROWSERS["Instagram"]).content.decode()
    assert f'<a id="open" href="{app.app_store_url}"' in body
    assert '<a id="open-app" href="myapp://product/42"' in body


@pytest.mark.parametrize("name", CRAWLERS)
def test_crawlers_get_the_open_graph_page_and_are_not_counted(client, app, name):
    make_link(app, og_title="Summer sale", og_description="Half off <today>",
              og_image_url="https://cdn.example.com/sale.png")
    response = follow(client, user_agent=CRAWLERS[name])
    assert response.status_code == 200
    body = response.content.decode()
    assert '<meta property="og:title" content="Summer sale">' in body
    assert '<meta property="og:description" content="Half off &lt;today&gt;">' in body
    assert '<meta property="og:image" content="https://cdn.example.com/sale.png">' in body
    assert '<meta property="og:url" content="http://testserver/l/summer">' in body
    assert '<meta name="twitter:card" content="summary_large_image">' in body
    assert not Click.objects.exists()


def test_the_preview_falls_back_to_the_apps_name(client, app, settings):
    settings.LINKS_BASE_URL = "https://go.example.com"
    make_link(app)
    body = follow(client, user_agent=CRAWLERS["Slackbot"]).content.decode()
    assert f'<meta property="og:title" content="{app.name}">' in body
    assert '<meta property="og:url" content="https://go.example.com/l/summer">' in body
    assert '<meta name="twitter:card" content="summary">' in body


def test_open_redirects_are_impossible(client, app):
    # Destinations are checked at save; a row that got past that still cannot redirect away.
    make_link(app, web_url="javascript:alert(1)", ios_url="//evil.example/x")
    assert follow(client, user_agent=DESKTOP_CHROME)["Location"].startswith(
        app.play_store_url + "&referrer=")
    assert follow(client, user_agent=IPHONE_SAFARI)["Location"] == app.app_store_url
    # Query parameters cannot choose the destination either.
    response = follow(client, redirect_url="https://evil.example/", user_agent=DESKTOP_CHROME)
    assert "evil" not in response["Location"]


def test_a_rate_limited_click_is_not_counted_but_still_redirected(client, app, settings):
    settings.CLICK_RATE_LIMIT_PER_APP = 1
    make_link(app)
    assert follow(client).status_code == 302
    response = follow(client)
    assert response.status_code == 302 and response["Location"] == app.play_store_url
    assert Click.objects.count() == 1


def test_following_takes_the_hot_path_without_sessions(client, app):
    make_link(app)
    response = follow(client)
    assert "Set-Cookie" not in response
    assert not hasattr(response.wsgi_request, "user")
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_link_answers_whatever_host_it_arrives_on(client, app):
    make_link(app)
    response = client.get("/l/summer", HTTP_HOST="unknown.example", HTTP_USER_AGENT=ANDROID_CHROME)
    assert response.status_code == 302
