"""GET /api/v1/clicks: always a 302, the click stored before it is sent."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection

from tests.factories import AppFactory
from tests.tracking.helpers import (
    ANDROID_BROWSER,
    DESKTOP,
    IPHONE_SAFARI,
    PUBLIC_IP,
    click_through,
)
from tracking.models import Click, ClickArchive

pytestmark = pytest.mark.django_db


def test_click_is_recorded_in_hot_store_and_archive_then_redirected(api, app):
    response = click_through(api, app, c="summer", pid="facebook", af_adset="s1", af_ad="a1",
                             advertising_id="GAID-1234")
    assert response.status_code == 302
    click = Click.objects.get()
    archived = ClickArchive.objects.get()
    assert archived.id == click.id
    assert (click.app_id, click.campaign_id, click.media_source, click.adset, click.ad) == (
        app.id, "summer", "facebook", "s1", "a1")
    assert click.advertising_id == "gaid-1234"
    assert click.ip == PUBLIC_IP and click.ip_prefix == "81.2.69.0/24"
    assert (click.os_family, click.os_version, click.device_model) == (
        "Android", "14", "SM-S918B")
    assert click.accept_language.startswith("en-US")
    assert len(click.fingerprint) == 64


def test_android_device_goes_to_play_store_with_the_click_in_the_referrer(api, app):
    response = click_through(api, app, pid="facebook", c="summer")
    target = urlsplit(response["Location"])
    assert target.netloc == "play.google.com"
    referrer = parse_qs(parse_qs(target.query)["referrer"][0])
    assert referrer == {"click_id": [str(Click.objects.get().id)], "pid": ["facebook"],
                        "c": ["summer"]}


def test_iphone_goes_to_the_app_store(api, app):
    response = click_through(api, app, user_agent=IPHONE_SAFARI)
    assert response["Location"] == app.app_store_url


def test_web_app_goes_to_its_domain_naming_the_click(api, owner):
    web = AppFactory(organization=owner.organization, platform="web", package_name=None,
                     domain="app.example.com")
    location = click_through(api, web, user_agent=DESKTOP)["Location"]
    assert location == f"https://app.example.com/?attribution_click_id={Click.objects.get().id}"


def test_redirect_url_has_the_highest_priority_and_is_returned_as_given(api, app):
    response = click_through(api, app, redirect_url="https://landing.example.com/x?y=1")
    assert response["Location"] == "https://landing.example.com/x?y=1"
    assert Click.objects.count() == 1


def test_a_web_apps_redirect_url_names_the_click(api, owner):
    web = AppFactory(organization=owner.organization, platform="web", package_name=None,
                     domain="app.example.com")
    response = click_through(api, web, redirect_url="https://landing.example.com/x?y=1")
    assert response["Location"] == (
        f"https://landing.example.com/x?y=1&attribution_click_id={Click.objects.get().id}")


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "data:text/html,x", "//evil.com/x",
                                 "https://a.com/\r\nX: y"])
def test_unsafe_redirect_urls_are_ignored(api, app, bad):
    response = click_through(api, app, redirect_url=bad)
    assert response.status_code == 302
    assert response["Location"].startswith("https://play.google.com/")


def test_unknown_app_redirects_to_the_default_store_without_recording(api, settings):
    response = api.get("/api/v1/clicks", {"app_id": "7d6b2a8e-0000-4000-8000-000000000000"},
                       HTTP_USER_AGENT=IPHONE_SAFARI)
    assert response.status_code == 302
    assert response["Location"] == settings.DEFAULT_STORE_URLS["ios"]
    assert Click.objects.count() == 0


@pytest.mark.parametrize("query", ["", "?app_id=not-a-uuid", "?app_id=&c=%ff%fe",
                                   "?%zz=1&app_id=%00", "?pid=" + "x" * 8000,
                                   "?" + "&".join(f"p{n}=1" for n in range(1500)),
                                   "?a=1;b=2&&&=&c"])
def test_garbage_parameters_still_redirect(api, query):
    response = api.get("/api/v1/clicks" + query, HTTP_USER_AGENT=ANDROID_BROWSER)
    assert response.status_code == 302
    assert Click.objects.count() == 0


def test_repeated_and_encoded_parameters_read_as_django_reads_them(api, app):
    response = api.get(f"/api/v1/clicks?app_id={app.id}&c=first&c=last&pid=caf%C3%A9+bar"
                       "&af_adset=%E9t%E9", HTTP_USER_AGENT=ANDROID_BROWSER,
                       REMOTE_ADDR=PUBLIC_IP)
    assert response.status_code == 302
    click = Click.objects.get()
    assert (click.campaign_id, click.media_source, click.adset) == ("last", "café bar",
                                                                    "\ufffdt\ufffd")


def test_over_long_and_invalid_values_are_stored_safely(api, app):
    response = api.get(f"/api/v1/clicks?app_id={app.id}&c={'y' * 7000}&pid=%ff%00fb",
                       HTTP_USER_AGENT=ANDROID_BROWSER, REMOTE_ADDR=PUBLIC_IP)
    assert response.status_code == 302
    click = Click.objects.get()
    assert len(click.campaign_id) == 255
    assert "\x00" not in click.media_source


@pytest.mark.parametrize("zero", ["00000000-0000-0000-0000-000000000000", "", "0000-0000"])
def test_zeroed_advertising_ids_are_stored_as_absent(api, app, zero):
    click_through(api, app, advertising_id=zero)
    assert Click.objects.get().advertising_id is None


def test_client_address_honours_trusted_proxies(api, app, settings):
    settings.NUM_PROXIES = 1
    api.get("/api/v1/clicks", {"app_id": str(app.id)}, REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR="6.6.6.6, 81.2.69.10", HTTP_USER_AGENT=ANDROID_BROWSER)
    assert Click.objects.get().ip == "81.2.69.10"


def test_forwarded_for_is_ignored_without_trusted_proxies(api, app):
    api.get("/api/v1/clicks", {"app_id": str(app.id)}, REMOTE_ADDR="81.2.69.11",
            HTTP_X_FORWARDED_FOR="6.6.6.6", HTTP_USER_AGENT=ANDROID_BROWSER)
    assert Click.objects.get().ip == "81.2.69.11"


def test_rate_limited_clicks_still_redirect_but_are_not_recorded(api, app, settings,
                                                                 one_rate_window):
    settings.CLICK_RATE_LIMIT_PER_APP = 2
    statuses = [click_through(api, app).status_code for _ in range(4)]
    assert statuses == [302] * 4
    assert Click.objects.count() == 2


def test_a_database_failure_still_redirects(api, app):
    with connection.cursor() as cursor:  # a real failure: the hot store is gone
        cursor.execute("ALTER TABLE tracking_click RENAME TO tracking_click_away")
    response = click_through(api, app)
    assert response.status_code == 302
    assert response["Location"].startswith("https://play.google.com/")


def test_post_to_clicks_is_an_enveloped_405(api, app):
    response = api.post("/api/v1/clicks", {})
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def click_statement(api, app) -> str:
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert click_through(api, app, pid="fb").status_code == 302
    [insert] = [q["sql"] for q in queries if "INSERT INTO" in q["sql"]]
    return insert


ASYNC_COMMIT = "set_config('synchronous_commit', 'off', true)"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # autocommit, as in production
@pytest.mark.parametrize("async_commit", [True, False])
def test_a_click_commits_asynchronously_only_when_configured_and_only_itself(
        api, app, settings, async_commit):
    settings.CLICK_ASYNC_COMMIT = async_commit
    assert (ASYNC_COMMIT in click_statement(api, app)) is async_commit
    assert Click.objects.get().media_source == "fb"
    assert ClickArchive.objects.get().media_source == "fb"
    with connection.cursor() as cursor:  # the connection's own setting is untouched
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"


@pytest.mark.postgres
def test_inside_a_transaction_a_click_never_changes_how_it_commits(api, app, settings):
    settings.CLICK_ASYNC_COMMIT = True
    assert ASYNC_COMMIT not in click_statement(api, app)  # the test's transaction is open
