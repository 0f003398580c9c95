"""Console links pages: the app's links (newest first, keyset-paged, short URL with a Copy
button), the builder form on the links API's serializers and services (every field, params as
key/value rows, errors beside fields as the API states them, 409 for a taken code), a link's
page with its QR code (the API's QR function, behind the session) and its report by day, and
delete after a confirmation. Another organization's or another app's link is a 404."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from django.test import override_settings
from django.utils import timezone

from links.codes import INVALID_MESSAGE
from links.models import Link, LinkDomain, LinkOpen
from links.services import CODE_TAKEN, link_create
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.factories import AppFactory
from tracking.models import ClickArchive, Install

pytestmark = pytest.mark.django_db

PLAY = "https://play.google.com/store/apps/details?id=com.acme.runner"
APP_STORE = "https://apps.apple.com/app/id123456789"


@pytest.fixture
def app(owner):
    return AppFactory(organization=owner.organization, name="Runner", platform="android",
                      package_name="com.acme.runner", play_store_url=PLAY,
                      app_store_url=APP_STORE, url_scheme="runner")


def base(app) -> str:
    return f"/console/apps/{app.id}/links"


def form(**fields) -> dict:
    return {"media_source": "instagram", "active": "true", **fields}


def html_of(response) -> str:
    return response.content.decode()


def errors_beside(html: str, field: str) -> list[str]:
    match = re.search(rf'<ul class="errors" id="err_{field}">(.*?)</ul>', html, re.S)
    if match is None:
        return []
    return [unescape(text) for text in re.findall(r"<li>(.*?)</li>", match.group(1))]


# --- The list ------------------------------------------------------------------------------

def test_the_list_shows_each_link_newest_first_with_its_short_url_and_a_copy_button(
        console, app):
    older = link_create(app=app, name="Spring", media_source="facebook", campaign_id="spring",
                        deep_link_value="product/1")
    Link.objects.filter(id=older.id).update(created_at=timezone.now() - timedelta(days=1))
    newer = link_create(app=app, name="Summer", media_source="instagram", code="summer",
                        active=False)
    response = console.get(base(app))
    html = html_of(response)
    assert response.status_code == 200
    assert html.index("Summer") < html.index("Spring")
    assert "http://testserver/l/summer" in html
    assert f'data-copy="short-{newer.id}"' in html and f'id="short-{newer.id}"' in html
    assert "facebook / spring" in html and "<code>product/1</code>" in html
    assert "Inactive" in html and "Active" in html
    assert f'href="{base(app)}/{older.id}"' in html
    assert 'aria-current="page">Links<' in html


def test_the_list_shows_each_links_clicks_of_the_last_seven_days(console, app):
    busy = link_create(app=app, name="Busy", media_source="instagram", code="busy")
    link_create(app=app, name="Quiet", media_source="instagram", code="quiet")
    now = timezone.now()
    for at in (now, now - timedelta(days=6), now - timedelta(days=8)):  # the last is too old
        ClickArchive.objects.create(app=app, media_source="instagram", clicked_at=at,
                                    link_id=busy.id)
    html = html_of(console.get(base(app)))
    assert '<th scope="col" class="num">Clicks (7 days)</th>' in html
    cells = re.findall(r'<td class="num">(\d+)</td>', html)
    assert cells == ["0", "2"]  # newest first: Quiet, then Busy


def test_the_list_names_the_configured_origin_of_short_links(console, app):
    link_create(app=app, media_source="instagram", code="summer")
    with override_settings(LINKS_BASE_URL="https://go.acme.example"):
        html = html_of(console.get(base(app)))
    assert "https://go.acme.example/l/summer" in html


def test_an_app_without_links_invites_to_create_one(console, app):
    html = html_of(console.get(base(app)))
    assert "No links yet." in html and f'href="{base(app)}/new"' in html


def test_the_list_pages_by_cursor_without_counting_and_a_bad_cursor_shows_the_first_page(
        console, app, django_assert_max_num_queries):
    start = timezone.now() - timedelta(days=1)
    links = [Link.objects.create(app=app, code=f"code{n:03d}", media_source="instagram",
                                 created_at=start + timedelta(minutes=n)) for n in range(51)]
    first = html_of(console.get(base(app)))
    assert "code050" in first and "code001" in first and "code000" not in first
    older = re.search(r'href="([^"]+)" rel="next">Older links', first).group(1)
    second = html_of(console.get(unescape(older)))
    assert "code000" in second and "code001" not in second
    assert "Older links" not in second and "Newest links" in second
    bad = html_of(console.get(base(app), {"after": "not-a-cursor"}))
    assert "code050" in bad
    with django_assert_max_num_queries(8):
        console.get(base(app))
    assert len(links) == 51


def test_hostile_text_in_a_link_is_shown_as_text(console, app):
    link = link_create(app=app, name=XSS_CAMPAIGN, media_source=XSS_SOURCE,
                       campaign_id=XSS_CAMPAIGN, deep_link_value=XSS_SOURCE,
                       params={XSS_CAMPAIGN: XSS_SOURCE}, og_title=XSS_CAMPAIGN)
    for path in ("", f"/{link.id}", f"/{link.id}/edit", f"/{link.id}/delete"):
        response = console.get(base(app) + path)
        assert response.status_code == 200
        assert_shown_as_text(html_of(response))


# --- Creating ------------------------------------------------------------------------------

def test_the_empty_form_shows_every_field_with_labels_and_the_apps_defaults_as_hints(
        console, app, owner):
    LinkDomain.objects.create(organization=owner.organization, host="go.acme.example")
    html = html_of(console.get(base(app) + "/new"))
    for name in ("name", "media_source", "campaign_id", "adset", "ad", "deep_link_value",
                 "ios_url", "android_url", "web_url", "og_title", "og_description",
                 "og_image_url", "code", "expires_at", "domain"):
        assert f'<label for="id_{name}">' in html, name
    for index in range(10):
        assert f'<label class="visually-hidden" for="id_param_key_{index}">' in html
        assert f'for="id_param_value_{index}">Parameter {index + 1} value</label>' in html
    assert APP_STORE in html and PLAY in html  # the defaults of iOS and Android
    assert '<option value="go.acme.example">go.acme.example</option>' in html
    assert 'name="active" value="true" checked' in html


def test_creating_a_link_with_every_field_leads_to_its_page(console, app, owner):
    LinkDomain.objects.create(organization=owner.organization, host="go.acme.example")
    expires = (timezone.now() + timedelta(days=30)).replace(second=0, microsecond=0)
    response = console.post(base(app) + "/new", form(
        name="Summer sale", campaign_id="summer", adset="stories", ad="video-1",
        deep_link_value="product/42", param_key_0="coupon", param_value_0="SUMMER10",
        param_key_4="ref", param_value_4="ig", ios_url="runner://product/42",
        android_url="", web_url="https://www.acme.example/summer", og_title="Summer sale",
        og_description="Ten percent off", og_image_url="https://www.acme.example/summer.png",
        expires_at=expires.strftime("%Y-%m-%dT%H:%M"), code="summer-sale",
        domain="go.acme.example"))
    link = Link.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{base(app)}/{link.id}"
    assert (link.name, link.media_source, link.campaign_id, link.adset, link.ad) == (
        "Summer sale", "instagram", "summer", "stories", "video-1")
    assert link.deep_link_value == "product/42"
    assert link.params == {"coupon": "SUMMER10", "ref": "ig"}
    assert (link.ios_url, link.android_url, link.web_url) == (
        "runner://product/42", None, "https://www.acme.example/summer")
    assert (link.og_title, link.og_description) == ("Summer sale", "Ten percent off")
    assert link.expires_at == expires and link.active
    assert link.code == "summer-sale" and link.domain.host == "go.acme.example"
    page = html_of(console.get(response["Location"]))
    assert "Created the link." in page and "https://go.acme.example/summer-sale" in page


def test_a_minimal_link_gets_a_generated_code_and_no_params(console, app):
    response = console.post(base(app) + "/new", form())
    link = Link.objects.get()
    assert response.status_code == 302
    assert len(link.code) == 7 and link.params == {} and link.domain is None
    assert (link.ios_url, link.android_url, link.web_url, link.expires_at) == (
        None, None, None, None)


def test_an_unticked_active_box_creates_an_inactive_link(console, app):
    console.post(base(app) + "/new", {"media_source": "instagram"})
    assert Link.objects.get().active is False


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"media_source": ""}, "media_source", "This field is required."),
    ({"ios_url": "javascript:alert(1)"}, "ios_url",
     "Must be an absolute http(s) URL or a runner:// URL of the app."),
    ({"web_url": "runner://home"}, "web_url", "Must be an absolute http(s) URL."),
    ({"code": "a b"}, "code", INVALID_MESSAGE),
    ({"expires_at": "2001-01-01T00:00"}, "expires_at", "Must be in the future."),
    ({"domain": "go.other.example"}, "domain",
     "No link domain with this host in your organization."),
])
def test_refused_input_is_shown_beside_its_field_as_the_api_says_it(
        console, app, fields, field, message):
    response = console.post(base(app) + "/new", form(deep_link_value="kept", **fields))
    html = html_of(response)
    assert response.status_code == 400
    assert message in errors_beside(html, field)
    assert 'value="kept"' in html  # what was typed stays
    assert not Link.objects.exists()


def test_a_taken_code_is_a_409_beside_the_code(console, app):
    link_create(app=app, media_source="facebook", code="summer")
    response = console.post(base(app) + "/new", form(code="summer"))
    assert response.status_code == 409
    assert CODE_TAKEN in errors_beside(html_of(response), "code")
    assert Link.objects.count() == 1


def test_another_organizations_domain_is_refused(console, app, outsider):
    LinkDomain.objects.create(organization=outsider.organization, host="go.other.example")
    html = html_of(console.get(base(app) + "/new"))
    assert "go.other.example" not in html
    response = console.post(base(app) + "/new", form(domain="go.other.example"))
    assert response.status_code == 400 and not Link.objects.exists()


def test_a_key_given_twice_is_an_error_on_its_row_and_nothing_is_saved(console, app):
    response = console.post(base(app) + "/new", form(
        param_key_0="coupon", param_value_0="A", param_key_1="coupon", param_value_1="B"))
    html = html_of(response)
    assert response.status_code == 400
    assert "This key is given twice." in errors_beside(html, "param_1")
    assert 'id="id_param_value_1" name="param_value_1" type="text" value="B"' in html
    assert not Link.objects.exists()


def test_a_value_without_a_key_is_refused_by_the_apis_rule(console, app):
    response = console.post(base(app) + "/new", form(param_value_2="orphan"))
    assert response.status_code == 400
    assert "Each key must be 1 to 64 characters." in errors_beside(html_of(response), "params")


# --- Editing -------------------------------------------------------------------------------

def test_the_edit_form_shows_the_links_values_and_keeps_code_and_domain(console, app):
    expires = datetime(2031, 5, 6, 7, 8, tzinfo=UTC)
    link = link_create(app=app, media_source="instagram", code="summer", expires_at=expires,
                       params={"coupon": "SUMMER10"}, web_url="https://www.acme.example/")
    html = html_of(console.get(f"{base(app)}/{link.id}/edit"))
    assert 'value="2031-05-06T07:08"' in html
    assert 'name="param_key_0" type="text" value="coupon"' in html
    assert 'value="https://www.acme.example/"' in html
    assert 'name="code"' not in html and 'name="domain"' not in html
    assert "http://testserver/l/summer" in html


def test_editing_changes_fields_clears_a_destination_and_the_params(console, app):
    link = link_create(app=app, media_source="instagram", campaign_id="old", code="summer",
                       params={"coupon": "SUMMER10"}, web_url="https://www.acme.example/")
    response = console.post(f"{base(app)}/{link.id}/edit", form(
        campaign_id="", deep_link_value="product/7", web_url="", param_key_0="",
        param_value_0=""))
    link.refresh_from_db()
    assert response.status_code == 302 and response["Location"] == f"{base(app)}/{link.id}"
    assert (link.campaign_id, link.deep_link_value, link.web_url, link.params) == (
        "", "product/7", None, {})
    assert link.code == "summer"


def test_an_expired_link_can_be_edited_without_touching_its_expiry(console, app):
    link = link_create(app=app, media_source="instagram",
                       expires_at=timezone.now() + timedelta(days=1))
    Link.objects.filter(id=link.id).update(expires_at=datetime(2024, 1, 1, 12, 0, 30, tzinfo=UTC))
    response = console.post(f"{base(app)}/{link.id}/edit", form(
        name="Renamed", expires_at="2024-01-01T12:00"))
    link.refresh_from_db()
    assert response.status_code == 302
    assert link.name == "Renamed" and link.expires_at == datetime(2024, 1, 1, 12, 0, 30, tzinfo=UTC)
    refused = console.post(f"{base(app)}/{link.id}/edit", form(expires_at="2024-02-01T00:00"))
    assert "Must be in the future." in errors_beside(html_of(refused), "expires_at")


def test_an_edit_refused_by_the_service_shows_the_error_beside_the_field(console, app):
    link = link_create(app=app, media_source="instagram")
    response = console.post(f"{base(app)}/{link.id}/edit", form(android_url="data:text/html,x"))
    assert response.status_code == 400
    assert errors_beside(html_of(response), "android_url")
    link.refresh_from_db()
    assert link.android_url is None


# --- A link's page, its QR code and report -------------------------------------------------

def test_the_links_page_shows_the_short_url_qr_code_and_report_by_day(console, app):
    link = link_create(app=app, media_source="instagram", code="summer",
                       deep_link_value="product/42")
    other = link_create(app=app, media_source="instagram")
    now = timezone.now()
    for at in (now, now, now - timedelta(days=2)):
        ClickArchive.objects.create(app=app, media_source="instagram", clicked_at=at,
                                    link_id=link.id)
    ClickArchive.objects.create(app=app, media_source="instagram", clicked_at=now,
                                link_id=other.id)
    Install.objects.create(app=app, platform="android", sdk_version="1.0",
                           match_type="device_id", installed_at=now, link_id=link.id)
    LinkOpen.objects.create(link=link, app_id=app.id, opened_at=now)
    html = html_of(console.get(f"{base(app)}/{link.id}"))
    assert 'id="short-url" type="text" value="http://testserver/l/summer"' in html
    assert 'data-copy="short-url"' in html
    assert f'<img src="{base(app)}/{link.id}/qr?format=svg&amp;size=240"' in html
    assert f'{base(app)}/{link.id}/qr?format=png&amp;size=1024&amp;download=1' in html
    assert '/api/v1/' not in html.split('<section class="qr"')[1].split("</section>")[0]
    assert 'data-total="clicks">3<' in html
    assert 'data-total="installs">1<' in html and 'data-total="opens">1<' in html
    today = now.date().isoformat()
    assert re.search(rf'{today}</td><td class="num">2</td><td class="num">1</td>'
                     r'<td class="num">1</td>', html)


def test_the_report_range_comes_from_the_query_and_a_refused_one_says_so(console, app):
    link = link_create(app=app, media_source="instagram")
    ClickArchive.objects.create(app=app, media_source="instagram", link_id=link.id,
                                clicked_at=datetime(2025, 6, 10, 12, tzinfo=UTC))
    html = html_of(console.get(f"{base(app)}/{link.id}",
                               {"range": "custom", "start": "2025-06-09", "end": "2025-06-11"}))
    assert html.count('<td class="day">') == 3 and 'data-total="clicks">1<' in html
    refused = html_of(console.get(f"{base(app)}/{link.id}",
                                  {"range": "custom", "start": "2025-06-11", "end": "bad"}))
    assert "That custom range was refused" in refused
    assert refused.count('<td class="day">') == 7  # the default: 7 days


def test_the_qr_code_is_the_short_url_as_svg_or_png_and_a_download(console, app):
    link = link_create(app=app, media_source="instagram", code="summer")
    svg = console.get(f"{base(app)}/{link.id}/qr", {"format": "svg", "size": "240"})
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert b"http://testserver/l/summer" in svg.content  # its title
    png = console.get(f"{base(app)}/{link.id}/qr", {"format": "png", "size": "1024",
                                                    "download": "1"})
    assert png["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG")
    assert png["Content-Disposition"] == 'attachment; filename="link-summer.png"'
    bad = console.get(f"{base(app)}/{link.id}/qr", {"format": "gif", "size": "9"})
    assert bad.status_code == 400
    assert b"Must be one of svg, png." in bad.content


def test_the_qr_code_matches_the_apis(console, app, owner_api):
    link = link_create(app=app, media_source="instagram", code="summer")
    ours = console.get(f"{base(app)}/{link.id}/qr", {"format": "svg", "size": "300"})
    theirs = owner_api.get(f"/api/v1/links/{link.id}/qr", {"format": "svg", "size": "300"})
    assert ours.content == theirs.content


# --- Deleting and scoping ------------------------------------------------------------------

def test_deleting_asks_first_then_removes_the_link_and_keeps_its_clicks(console, app):
    link = link_create(app=app, media_source="instagram", code="summer")
    ClickArchive.objects.create(app=app, media_source="instagram", clicked_at=timezone.now(),
                                link_id=link.id)
    page = html_of(console.get(f"{base(app)}/{link.id}/delete"))
    assert "Delete this link?" in page and "http://testserver/l/summer" in page
    assert Link.objects.exists()
    response = console.post(f"{base(app)}/{link.id}/delete")
    assert response.status_code == 302 and response["Location"] == base(app)
    assert not Link.objects.exists() and ClickArchive.objects.count() == 1
    assert "Deleted the link." in html_of(console.get(base(app)))


@pytest.mark.parametrize("suffix", ["", "/edit", "/delete", "/qr"])
def test_another_organizations_or_another_apps_link_is_a_404(console, app, outsider_app,
                                                             owner, suffix):
    foreign = link_create(app=outsider_app, media_source="instagram")
    sibling_app = AppFactory(organization=owner.organization)
    sibling = link_create(app=sibling_app, media_source="instagram")
    for link in (foreign, sibling):
        assert console.get(f"{base(app)}/{link.id}{suffix}").status_code == 404
        if suffix in ("/edit", "/delete"):
            assert console.post(f"{base(app)}/{link.id}{suffix}", form()).status_code == 404
    assert console.get(f"{base(outsider_app)}{suffix and '/new'}").status_code == 404
    assert Link.objects.count() == 2


def test_the_pages_need_a_login(client, app):
    link = link_create(app=app, media_source="instagram")
    response = client.get(f"{base(app)}/{link.id}")
    assert response.status_code == 302 and response["Location"].startswith("/console/login")
