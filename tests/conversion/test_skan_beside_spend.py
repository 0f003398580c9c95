"""SKAN installs and revenue beside the spend of the campaign their source identifier is
mapped to (PUT /api/v1/apps/{id}/skan/campaign-mappings; GET /api/v1/analytics/cost's
skan_installs, skan_cpi, skan_revenue, skan_roas and skan_unmatched_installs)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from analytics.costs import SpendRow, cost_rows_replace
from skan.models import AdNetwork, CampaignMapping
from tests.conversion.samples import SCHEMA
from tests.conversion.test_report import META, TIKTOK, at, postback, version
from tests.factories import AppFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

RANGE = {"start_date": "2025-03-01", "end_date": "2025-03-31"}


def mappings_url(app) -> str:
    return f"/api/v1/apps/{app.id}/skan/campaign-mappings"


@pytest.fixture
def ios_app(owner):
    app = AppFactory(organization=owner.organization, platform="ios")
    AdNetwork.objects.update_or_create(network_id=META, defaults={"name": "meta"})
    AdNetwork.objects.update_or_create(network_id=TIKTOK, defaults={"name": "tiktok"})
    version(app, SCHEMA, at(1, 0))
    cost_rows_replace(app_id=app.id, connection="meta", media_source="meta", account="act_1",
                      days=[date(2025, 3, 2)], rows=[
                          SpendRow(day=date(2025, 3, 2), campaign_id="120", adset_id="a1",
                                   spend=Decimal("10"), currency="USD", impressions=900,
                                   clicks=30)])
    postback(app, received_at=at(4), source="1234", fine=40)  # 12.50 each: [5, 20)
    postback(app, received_at=at(5), source="1234", fine=40)
    postback(app, received_at=at(5), source="99", fine=0)  # mapped to nothing
    postback(app, received_at=at(5), network=TIKTOK, source="55", fine=0)  # no spend
    return app


def cost(client, app, **more) -> dict:
    response = client.get("/api/v1/analytics/cost", {"app_id": str(app.id), **RANGE, **more})
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def test_mapped_skan_installs_stand_beside_their_campaigns_spend(owner_api, ios_app):
    body = {"mappings": [
        {"media_source": "meta", "source_identifier": "1234", "campaign_id": "120"},
        {"media_source": "tiktok", "source_identifier": "55", "campaign_id": "77"}]}
    put = owner_api.put(mappings_url(ios_app), body, format="json")
    assert put.status_code == 200 and put.json()["data"] == body | {
        "mappings": sorted(body["mappings"], key=lambda m: m["media_source"])}

    data = cost(owner_api, ios_app)
    [row] = data["rows"]
    assert (row["media_source"], row["campaign_id"], row["spend"]) == ("meta", "120", 10.0)
    assert (row["skan_installs"], row["skan_cpi"], row["skan_revenue"], row["skan_roas"]) == (
        2, 5.0, 25.0, 250.0)
    assert data["total"]["skan_installs"] == 2
    assert data["skan_unmatched_installs"] == 2  # source 99, and tiktok's campaign had no spend
    by_source = cost(owner_api, ios_app, group_by="media_source")
    assert by_source["rows"][0]["skan_installs"] == 2


def test_skan_figures_are_null_by_day_and_below_the_campaign_and_without_postbacks(
        owner_api, ios_app, app):
    CampaignMapping.objects.create(app=ios_app, media_source="meta", source_identifier="1234",
                                   campaign_id="120")
    for group_by in ("day", "adset", "ad"):
        data = cost(owner_api, ios_app, group_by=group_by)
        assert data["rows"][0]["skan_installs"] is None and data["rows"][0]["skan_cpi"] is None
        assert data["skan_unmatched_installs"] is None
    android = cost(owner_api, app)  # no postbacks: nothing to say, not zero
    assert android["total"]["skan_installs"] is None


def test_a_put_replaces_the_whole_set(owner_api, ios_app):
    first = {"mappings": [{"media_source": "meta", "source_identifier": "1234",
                           "campaign_id": "120"}]}
    assert owner_api.put(mappings_url(ios_app), first, format="json").status_code == 200
    assert owner_api.put(mappings_url(ios_app), {"mappings": []},
                         format="json").json()["data"] == {"mappings": []}
    assert owner_api.get(mappings_url(ios_app)).json()["data"] == {"mappings": []}
    assert cost(owner_api, ios_app)["skan_unmatched_installs"] == 4


@pytest.mark.parametrize(("body", "field"), [
    ({}, "mappings"),
    ({"mappings": {"meta": "120"}}, "mappings"),
    ({"mappings": [{"media_source": "meta", "source_identifier": "12a4",
                    "campaign_id": "1"}]}, "mappings"),
    ({"mappings": [{"media_source": "meta", "source_identifier": "12345",
                    "campaign_id": "1"}]}, "mappings"),
    ({"mappings": [{"media_source": "meta", "source_identifier": "1"}]}, "mappings"),
    ({"mappings": [{"media_source": "meta", "source_identifier": "1", "campaign_id": "1"},
                   {"media_source": "meta", "source_identifier": "1", "campaign_id": "2"}]},
     "mappings"),
])
def test_bad_mappings_are_refused_naming_the_field(owner_api, ios_app, body, field):
    response = owner_api.put(mappings_url(ios_app), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert field in error["details"]
    assert not CampaignMapping.objects.exists()


def test_marketers_map_viewers_read_and_other_organizations_see_nothing(
        owner, ios_app, outsider_api):
    body = {"mappings": [{"media_source": "meta", "source_identifier": "1234",
                          "campaign_id": "120"}]}
    marketer = client_for(UserFactory(organization=owner.organization, role="marketer"))
    viewer = client_for(UserFactory(organization=owner.organization, role="viewer"))
    assert marketer.put(mappings_url(ios_app), body, format="json").status_code == 200
    assert viewer.put(mappings_url(ios_app), body, format="json").status_code == 403
    assert viewer.get(mappings_url(ios_app)).json()["data"] == body
    assert outsider_api.get(mappings_url(ios_app)).status_code == 404
