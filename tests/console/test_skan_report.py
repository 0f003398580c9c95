"""The SKAdNetwork report page (docs/console.md, "SKAdNetwork pages"): Apple's example
postbacks and the conversion tests' hand-made ones show with the figures
`GET /api/v1/analytics/skan` gives (installs per network and source identifier, null share,
value distributions per window, estimated revenue), for the range chooser's range; names as
text; iOS apps only; another organization's app is a 404."""

from __future__ import annotations

import json
import re

import pytest
from django.utils import timezone

from skan.models import AdNetwork, AppAdNetworkName
from tests.console.helpers import XSS_CAMPAIGN, assert_shown_as_text
from tests.conversion.samples import SCHEMA
from tests.conversion.test_report import META, TIKTOK, at, postback, version
from tests.factories import AppFactory
from tests.skan import apple_vectors as apple

pytestmark = pytest.mark.django_db

MARCH = {"range": "custom", "start": "2025-03-01", "end": "2025-03-31"}


@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, platform="ios", package_name=None,
                      play_store_url=None, bundle_id="com.example.shop",
                      apple_app_id=str(apple.APP_STORE_ID))


@pytest.fixture
def named():
    AdNetwork.objects.update_or_create(network_id=META, defaults={"name": "meta"})
    AdNetwork.objects.update_or_create(network_id=TIKTOK, defaults={"name": "tiktok"})


def page(app):
    return f"/console/apps/{app.id}/skan"


def table_rows(html: str, heading_id: str) -> list[str]:
    """The text of each body row of the table labelled by `heading_id`."""
    table = html.split(f'aria-labelledby="{heading_id}"', 1)[1].split("</table>", 1)[0]
    tbody = table.split("<tbody>", 1)[1]
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split())
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", tbody, re.S)]


def tiles(html: str) -> dict[str, str]:
    return dict(re.findall(r'<dt class="label">([^<]+)</dt><dd class="value">([^<]+)</dd>',
                           html))


@pytest.fixture
def march(ios_app, named):
    """The API report test's postbacks: two days, two networks, both windows, a null value,
    a coarse-only value and a value no rule gives."""
    version(ios_app, SCHEMA, at(1, 0))
    postback(ios_app, received_at=at(3), fine=20)
    postback(ios_app, received_at=at(3, 18), fine=63, redownload=True)
    postback(ios_app, received_at=at(3), coarse="high")
    postback(ios_app, received_at=at(3))
    postback(ios_app, received_at=at(3), fine=7)
    postback(ios_app, received_at=at(3), window=1, coarse="medium")
    postback(ios_app, received_at=at(4), fine=0, source="99")
    postback(ios_app, received_at=at(4), network=TIKTOK.upper(), fine=40)
    return ios_app


def test_apples_example_postbacks_show_decoded_through_the_schema(console, api, owner_api,
                                                                   ios_app):
    assert owner_api.post(f"/api/v1/apps/{ios_app.id}/conversion-schemas", SCHEMA,
                          format="json").status_code == 201
    for example in (apple.V4_FINE, apple.V4_COARSE):  # fine 63; coarse "high"
        assert api.post("/.well-known/skadnetwork/report-attribution/",
                        data=json.dumps(example),
                        content_type="application/json").status_code == 200

    response = console.get(page(ios_app), {"range": "today"})
    assert response.status_code == 200
    html = response.content.decode()
    assert tiles(html)["Installs"] == "2"
    assert tiles(html)["Estimated revenue"] == "32.50 USD"  # 20 (purchase >= 20) + 12.5
    assert tiles(html)["Null values (privacy threshold)"] == "0.00%"
    sources = table_rows(html, "sources-heading")
    assert sources == ["com.example com.example 39 1 1 0.00% 12.50 USD 0 0",
                       "com.example com.example 5239 1 1 0.00% 20.00 USD 0 0"]
    assert table_rows(html, "fine-heading") == ["63 1"]
    assert table_rows(html, "windows-heading") == ["Days 0-2 2 0 0.00% 0 0 1 32.50 USD"]


def test_the_range_report_has_the_apis_figures(console, owner_api, march):
    html = console.get(page(march), MARCH).content.decode()
    api = owner_api.get("/api/v1/analytics/skan", {
        "app_id": str(march.id), "start_date": "2025-03-01",
        "end_date": "2025-03-31"}).json()["data"]["rows"]
    assert tiles(html) == {
        "Installs": str(sum(row["installs"] for row in api)),  # 7
        "Postbacks": "8", "Null values (privacy threshold)": "12.50%",
        # 35.005 + 5.005 + 0 + 12.5, rounded once: the API's rows, each rounded, add to 52.52
        "Estimated revenue": "52.51 USD",
        "Redownloads": "1", "Postbacks no rule decodes": "1"}
    assert [row["estimated_revenue"] for row in api] == [35.01, 5.01, 0.0, 12.5]
    assert table_rows(html, "sources-heading") == [
        f"meta {META} 1234 5 6 16.67% 40.01 USD 1 1",
        f"meta {META} 99 1 1 0.00% 0.00 USD 0 0",
        f"tiktok {TIKTOK} 1234 1 1 0.00% 12.50 USD 0 0"]
    assert table_rows(html, "windows-heading") == [
        "Days 0-2 7 1 14.29% 0 0 1 47.51 USD",
        "Days 3-7 1 0 0.00% 0 1 0 5.01 USD"]
    assert table_rows(html, "fine-heading") == ["0 1", "7 1", "20 1", "40 1", "63 1"]
    assert len(table_rows(html, "days-heading")) == len(api) == 4


def test_the_page_has_the_range_chooser_and_says_when_its_figures_were_complete(console,
                                                                               ios_app):
    html = console.get(page(ios_app)).content.decode()
    assert 'aria-current="true" class="current">7 days</a>' in html
    assert re.search(r"Figures include data through <time datetime=\"[^\"]+\">", html)
    assert "No postbacks arrived in this range." in html


def test_a_refused_range_shows_the_apis_message(console, march):
    response = console.get(page(march), {"range": "custom", "start": "2025-03-31",
                                         "end": "2025-03-01"})
    assert response.status_code == 200
    assert "That custom range was refused" in response.content.decode()


def test_network_names_and_source_identifiers_are_shown_as_text(console, ios_app, named):
    AppAdNetworkName.objects.create(app=ios_app, network_id=META, name=XSS_CAMPAIGN)
    postback(ios_app, received_at=timezone.now(), fine=3, source="<b>1</b>")
    html = console.get(page(ios_app), {"range": "today"}).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;b&gt;1&lt;/b&gt;" in html
    assert "<b>1</b>" not in html
    assert_shown_as_text(html)


@pytest.mark.parametrize("platform", ["android", "web"])
def test_other_platforms_get_a_page_that_says_ios_only(console, owner, platform):
    app = AppFactory(organization=owner.organization, platform=platform,
                     domain="shop.example" if platform == "web" else None)
    response = console.get(page(app))
    assert response.status_code == 200
    html = response.content.decode()
    assert "SKAdNetwork is for iOS apps" in html and 'class="tabs"' not in html


def test_another_organizations_app_is_a_404(console, outsider, named):
    theirs = AppFactory(organization=outsider.organization, platform="ios", package_name=None,
                        play_store_url=None, bundle_id="com.example.theirs")
    postback(theirs, received_at=timezone.now(), fine=3)
    assert console.get(page(theirs)).status_code == 404


# --- Refused postbacks --------------------------------------------------------------------------

def post_skan(api, body: dict, path: str = "skadnetwork"):
    return api.post(f"/.well-known/{path}/report-attribution/", data=json.dumps(body),
                    content_type="application/json")


def test_refused_postbacks_naming_the_app_show_with_their_reasons_in_words(console, api,
                                                                           ios_app, settings):
    settings.SKAN_ACCEPT_DEVELOPMENT_POSTBACKS = False
    forged = {**apple.V4_FINE, "transaction-id": "forged-0001"}  # a signed field changed
    assert post_skan(api, forged).json()["data"]["reason"] == "bad_signature"
    malformed = {**apple.V4_COARSE, "source-identifier": "1"}
    assert post_skan(api, malformed).status_code == 400
    # Another app's App Store id: refused as unknown, and none of this app's business.
    assert post_skan(api, {**apple.V3_WIN, "app-id": 999}).json()["data"]["reason"] == \
        "bad_signature"
    response = console.get(page(ios_app), {"range": "today"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "No postbacks were counted in this range." in html
    assert '<a href="#refused-heading">2 arrived and were refused</a>' in html
    assert (f"2 postbacks naming App Store id <code>{apple.APP_STORE_ID}</code> were received "
            "in this range and not counted.") in html
    rows = [row.split(" ", 2)[2] for row in table_rows(html, "refused-heading")]  # no time
    assert rows == [
        "SKAdNetwork Not a postback as Apple sends them. `source-identifier` must be two to "
        f"four digits. {apple.V4_COARSE['transaction-id']}",
        "SKAdNetwork Apple&#x27;s signature does not verify: not sent by Apple, or changed on "
        "the way. Apple&#x27;s signature does not verify. forged-0001"]
    assert "999" not in html.split('id="refused-heading"')[1]


def test_a_development_signed_postback_says_how_to_count_it(console, api, owner, settings):
    settings.SKAN_ACCEPT_DEVELOPMENT_POSTBACKS = False
    app = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     play_store_url=None, bundle_id="com.example.aak",
                     apple_app_id=str(apple.AAK_APP_STORE_ID))
    answer = post_skan(api, apple.AAK_BODY, path="appattribution")
    assert answer.json()["data"]["reason"] == "development_key"
    rows = table_rows(console.get(page(app), {"range": "today"}).content.decode(),
                      "refused-heading")
    assert len(rows) == 1
    assert ("AdAttributionKit Signed with Apple&#x27;s development key (a test postback): counted "
            "only where SKAN_ACCEPT_DEVELOPMENT_POSTBACKS=1.") in rows[0]


def test_an_app_without_an_app_store_id_is_told_why_every_postback_is_refused(console, owner):
    app = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     play_store_url=None, bundle_id="com.example.noid", apple_app_id=None)
    html = console.get(page(app)).content.decode()
    assert "This app has no App Store id, and postbacks name the app by it" in html
    assert 'aria-labelledby="refused-heading" class="refusals"' not in html


def test_no_refusals_says_every_postback_was_counted(console, ios_app):
    html = console.get(page(ios_app)).content.decode()
    assert "None in this range: every postback naming App Store id" in html


def test_refusals_outside_the_range_are_not_counted(console, ios_app):
    from skan.models import RefusedPostback

    RefusedPostback.objects.create(framework="skadnetwork", reason="bad_signature",
                                   app_store_id=str(apple.APP_STORE_ID), raw_body="{}",
                                   received_at=at(3))
    html = console.get(page(ios_app), {"range": "today"}).content.decode()
    assert "None in this range" in html
    html = console.get(page(ios_app), MARCH).content.decode()
    assert "1 postback naming App Store id" in html
