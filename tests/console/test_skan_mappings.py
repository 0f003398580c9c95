"""The SKAN campaign mappings page (lines of media source, source identifier, campaign id,
checked by the API's parser) and the Cost page's SKAN columns beside a mapped campaign."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse

from analytics.costs import SpendRow, cost_rows_replace
from audit.models import Entry
from skan.models import AdNetwork, CampaignMapping
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.conversion.samples import SCHEMA
from tests.conversion.test_report import META, at, postback, version
from tests.factories import AppFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, platform="ios")


def url(app) -> str:
    return reverse("console:skan-campaign-mappings-edit", args=[app.id])


def test_lines_replace_the_mappings(console, ios_app):
    response = console.post(url(ios_app), {"mappings": "meta, 1234, 120\n\n tiktok,55,77 \n"})
    assert response.status_code == 302
    assert sorted(CampaignMapping.objects.values_list(
        "media_source", "source_identifier", "campaign_id")) == [
        ("meta", "1234", "120"), ("tiktok", "55", "77")]
    html = console.get(url(ios_app)).content.decode()
    assert "meta, 1234, 120" in html and "Saved 2 mappings." in html


def test_a_bad_line_is_named_and_nothing_is_saved(console, ios_app):
    CampaignMapping.objects.create(app=ios_app, media_source="meta", source_identifier="1",
                                   campaign_id="9")
    response = console.post(url(ios_app), {"mappings": "meta, 1234, 120\nmeta, 12x, 5\nmeta"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Line 2: source identifier: Must be 1 to 4 digits" in html
    assert "Line 3: campaign id: This field is required." in html
    assert CampaignMapping.objects.get().campaign_id == "9"


def test_typed_markup_is_text(console, ios_app):
    console.post(url(ios_app), {"mappings": f"{XSS_SOURCE}, 1, {XSS_CAMPAIGN}"})
    assert CampaignMapping.objects.get().campaign_id == XSS_CAMPAIGN
    assert_shown_as_text(console.get(url(ios_app)).content.decode())


def test_a_viewer_reads_without_the_form_and_may_not_post(client, owner, ios_app):
    client.force_login(UserFactory(organization=owner.organization, role="viewer"))
    html = client.get(url(ios_app)).content.decode()
    assert "Campaign mappings" in html and 'name="mappings"' not in html
    assert client.post(url(ios_app), {"mappings": "meta, 1, 2"}).status_code == 403


def test_an_android_app_gets_the_ios_only_page(console, app):
    assert "iOS" in console.get(url(app)).content.decode()


def test_the_cost_page_shows_skan_beside_the_mapped_campaign(console, ios_app):
    AdNetwork.objects.update_or_create(network_id=META, defaults={"name": "meta"})
    version(ios_app, SCHEMA, at(1, 0))
    cost_rows_replace(app_id=ios_app.id, connection="meta", media_source="meta",
                      account="act_1", days=[date(2025, 3, 2)], rows=[
                          SpendRow(day=date(2025, 3, 2), campaign_id="120", spend=Decimal("10"),
                                   currency="USD")])
    postback(ios_app, received_at=at(4), source="1234", fine=40)
    postback(ios_app, received_at=at(4), source="7", fine=40)
    CampaignMapping.objects.create(app=ios_app, media_source="meta", source_identifier="1234",
                                   campaign_id="120")
    html = console.get(reverse("console:cost-report", args=[ios_app.id]),
                       {"range": "custom", "start": "2025-03-01",
                        "end": "2025-03-31"}).content.decode()
    assert "SKAN installs" in html and "SKAN ROAS" in html
    assert "1 more arrived for source identifiers mapped to no campaign" in html


def test_the_audit_log_names_the_change_as_the_api_does(console, ios_app):
    console.post(url(ios_app), {"mappings": "meta, 1234, 120"})
    assert Entry.objects.get().action == "skan_campaign_mappings.update"
