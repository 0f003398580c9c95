"""The click link builder: a GET form under the click endpoint's parameter names that answers
with the absolute tracking link; the link, followed, records the click it describes."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.tracking.helpers import ANDROID_BROWSER, PUBLIC_IP
from tracking.click_links import MEDIA_SOURCE_REQUIRED, REDIRECT_IGNORED
from tracking.models import Click

pytestmark = pytest.mark.django_db


def builder_url(app):
    return f"/console/apps/{app.id}/link-builder"


def built_link(response) -> str:
    match = re.search(r'id="tracking-link" type="text" value="([^"]*)"', response.content.decode())
    return unescape(match.group(1))


def test_the_empty_form_asks_without_errors_and_names_the_device_id_parameter(console, app):
    response = console.get(builder_url(app))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="pid"' in html and 'name="c"' in html and 'name="af_adset"' in html
    assert 'name="af_ad"' in html and 'name="redirect_url"' in html
    assert 'for="id_pid"' in html
    assert "&amp;advertising_id=" in html
    assert 'class="errors"' not in html and "tracking-link" not in html


def test_a_filled_form_gives_the_absolute_link_with_a_copy_button(console, app):
    response = console.get(builder_url(app), {
        "pid": " facebook ", "c": "summer sale", "af_adset": "set 1", "af_ad": "ad/7",
        "redirect_url": "https://example.com/landing?x=1"})
    assert response.status_code == 200
    link = built_link(response)
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "testserver", "/api/v1/clicks")
    assert dict(parse_qsl(parts.query)) == {
        "app_id": str(app.id), "pid": "facebook", "c": "summer sale", "af_adset": "set 1",
        "af_ad": "ad/7", "redirect_url": "https://example.com/landing?x=1"}
    html = response.content.decode()
    assert 'data-copy="tracking-link"' in html and "readonly" in html
    assert 'value="summer sale"' in html


def test_following_the_link_records_the_click_it_describes(console, client, app):
    link = built_link(console.get(builder_url(app), {"pid": "tiktok", "c": "winter",
                                                     "af_adset": "s", "af_ad": "a"}))
    parts = urlsplit(link)
    response = client.get(parts.path + "?" + parts.query, HTTP_USER_AGENT=ANDROID_BROWSER,
                          REMOTE_ADDR=PUBLIC_IP)
    assert response.status_code == 302
    click = Click.objects.get()
    assert (click.app_id, click.media_source, click.campaign_id, click.adset, click.ad) == (
        app.id, "tiktok", "winter", "s", "a")


def test_the_media_source_is_required_beside_its_field(console, app):
    response = console.get(builder_url(app), {"pid": "", "c": "summer"})
    assert response.status_code == 400
    html = response.content.decode()
    assert MEDIA_SOURCE_REQUIRED in html.split('id="err_pid"')[1]
    assert "tracking-link" not in html
    assert 'value="summer"' in html


def test_a_redirect_url_the_redirector_would_ignore_is_an_error_beside_it(console, app):
    response = console.get(builder_url(app), {"pid": "fb",
                                              "redirect_url": "javascript:alert(1)"})
    assert response.status_code == 400
    html = response.content.decode()
    assert REDIRECT_IGNORED in unescape(html.split('id="err_redirect_url"')[1])
    assert "tracking-link" not in html


def test_a_campaign_longer_than_a_click_keeps_is_an_error_beside_it(console, app):
    response = console.get(builder_url(app), {"pid": "fb", "c": "x" * 10_000})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Must be at most 255 characters." in html.split('id="err_c"')[1]
    assert "tracking-link" not in html


def test_another_organizations_app_is_a_404(console, outsider_app):
    assert console.get(builder_url(outsider_app), {"pid": "fb"}).status_code == 404


def test_the_builder_asks_a_visitor_to_log_in(client, app):
    assert client.get(builder_url(app)).status_code == 302


def test_hostile_values_are_shown_as_text_and_encoded_in_the_link(console, app):
    response = console.get(builder_url(app), {"pid": XSS_SOURCE, "c": XSS_CAMPAIGN})
    html = response.content.decode()
    assert_shown_as_text(html)
    query = dict(parse_qsl(urlsplit(built_link(response)).query))
    assert (query["pid"], query["c"]) == (XSS_SOURCE, XSS_CAMPAIGN)
    refused = console.get(builder_url(app), {"pid": "", "c": XSS_CAMPAIGN,
                                             "redirect_url": XSS_SOURCE})
    assert refused.status_code == 400
    assert_shown_as_text(refused.content.decode())
