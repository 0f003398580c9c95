"""Click links for ad networks: the query and its checks. Pure, no database."""

import uuid
from urllib.parse import parse_qsl

from tracking.click_links import (
    MEDIA_SOURCE_REQUIRED,
    REDIRECT_IGNORED,
    ClickLink,
    click_query,
    link_problems,
)

APP_ID = uuid.UUID("0193a000-0000-7000-8000-000000000001")


def test_the_query_names_the_app_then_each_given_parameter_in_the_spec_names():
    link = ClickLink(app_id=APP_ID, media_source="facebook", campaign_id="summer",
                     adset="set-1", ad="ad-7", redirect_url="https://example.com/landing")
    assert click_query(link) == (
        f"app_id={APP_ID}&pid=facebook&c=summer&af_adset=set-1&af_ad=ad-7"
        "&redirect_url=https%3A%2F%2Fexample.com%2Flanding")


def test_empty_parameters_are_left_out():
    assert click_query(ClickLink(app_id=APP_ID, media_source="tiktok")) == (
        f"app_id={APP_ID}&pid=tiktok")


def test_every_value_is_percent_encoded_and_reads_back_as_typed():
    hostile = '"><img src=x onerror=alert(2)>'
    link = ClickLink(app_id=APP_ID, media_source=hostile, campaign_id="été & co+1 #2",
                     redirect_url="https://example.com/a?b=1&c=d e")
    query = click_query(link)
    assert " " not in query and "<" not in query and "#" not in query and '"' not in query
    assert "%20" in query and "+" not in query
    values = dict(parse_qsl(query))
    assert values["pid"] == hostile and values["c"] == "été & co+1 #2"


def test_a_redirect_url_the_redirector_ignores_is_not_put_in_the_link():
    link = ClickLink(app_id=APP_ID, media_source="fb", redirect_url="javascript:alert(1)")
    assert "redirect_url" not in click_query(link)


def test_the_media_source_is_required():
    assert link_problems(ClickLink(app_id=APP_ID, media_source="  ")) == {
        "pid": [MEDIA_SOURCE_REQUIRED]}


def test_a_redirect_url_the_redirector_would_ignore_is_a_problem():
    for ignored in ("javascript:alert(1)", "//example.com/x", "ftp://example.com/f",
                    "example.com/landing", "https://exa mple.com/", "https://x.com/\x07",
                    "https:///nohost", "https://" + "a" * 4100 + ".com/"):
        assert link_problems(ClickLink(app_id=APP_ID, media_source="fb",
                                       redirect_url=ignored)) == {
            "redirect_url": [REDIRECT_IGNORED]}, ignored


def test_an_absolute_http_or_https_redirect_url_is_fine():
    for url in ("https://example.com/landing?x=1", "http://example.com"):
        assert link_problems(ClickLink(app_id=APP_ID, media_source="fb",
                                       redirect_url=url)) == {}
