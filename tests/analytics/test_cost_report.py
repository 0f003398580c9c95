"""Pulled spend in the reports: GET /api/v1/analytics/cost, and the campaigns, sources and
dashboard taking pulled spend over an upload of the same day, media source and campaign.

On the hand-built scenario (conftest.py) a pull of google covers g_c1 on day1 (8 USD over two
ad groups, outranking the uploaded 10 USD) and g_c9 on day3 (3 USD, no installs).
"""

from datetime import timedelta
from decimal import Decimal

import pytest

from analytics.costs import SpendRow, cost_rows_replace

pytestmark = pytest.mark.django_db

COST = "/api/v1/analytics/cost"


@pytest.fixture
def pulled(scenario):
    s = scenario
    cost_rows_replace(
        app_id=s.app.id, connection="google_ads", media_source="google", account="123",
        days=[s.day1, s.day2, s.day3], rows=[
            SpendRow(day=s.day1, campaign_id="g_c1", adset_id="ag1", spend=Decimal("5"),
                     currency="USD", impressions=200, clicks=8),
            SpendRow(day=s.day1, campaign_id="g_c1", adset_id="ag2", spend=Decimal("3"),
                     currency="USD", impressions=100, clicks=4),
            SpendRow(day=s.day3, campaign_id="g_c9", adset_id="ag9", spend=Decimal("3"),
                     currency="USD", impressions=50, clicks=1)])
    return s


def cost(client, scenario, **more):
    response = client.get(COST, {**scenario.range, **more})
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def line(media_source, campaign_id, spend, impressions, clicks, installs, cpi, revenue, roas,
         source, unconverted=()):
    return {"media_source": media_source, "campaign_id": campaign_id, "spend": spend,
            "impressions": impressions, "clicks": clicks, "installs": installs, "cpi": cpi,
            "revenue": revenue, "roas": roas, "skan_installs": None, "skan_cpi": None,
            "skan_revenue": None, "skan_roas": None, "cost_source": source,
            "unconverted_spend": list(unconverted)}


def test_cost_by_campaign_has_pulled_spend_over_the_upload_and_cost_without_installs(
        owner_api, pulled):
    data = cost(owner_api, pulled)
    assert data["group_by"] == "campaign" and data["currency"] == "USD"
    assert data["rows"] == [
        line("facebook", "fb_c1", 30.0, None, None, 1, 30.0, 8.89, 29.63, "csv"),
        line("facebook", "fb_c2", 22.22, None, None, 1, 22.22, 20.0, 90.0, "csv"),
        line("google", "g_c1", 8.0, 300, 12, 1, 8.0, 5.0, 62.5, "pull"),  # not the CSV's 10
        line("google", "g_c9", 3.0, 50, 1, 0, None, 0.0, 0.0, "pull"),  # cost without installs
        line("google", "g_c2", None, None, None, 1, None, 0.0, None, "csv",
             [{"currency": "JPY", "amount": 5.0}]),
    ]
    total = data["total"]
    assert (total["spend"], total["installs"], total["revenue"], total["cost_source"]) == (
        63.22, 4, 33.89, "mixed")


def test_cost_by_ad_set_has_spend_but_no_install_figures(owner_api, pulled):
    rows = cost(owner_api, pulled, group_by="adset")["rows"]
    assert [(r["media_source"], r["campaign_id"], r["adset_id"], r["spend"], r["installs"],
             r["cpi"]) for r in rows[:4]] == [
        ("facebook", "fb_c1", "", 30.0, None, None),
        ("facebook", "fb_c2", "", 22.22, None, None),
        ("google", "g_c1", "ag1", 5.0, None, None),
        ("google", "g_c1", "ag2", 3.0, None, None)]
    assert "ad_id" not in rows[0] and "date" not in rows[0]


def test_cost_by_day_adds_up_spend_and_the_installs_it_bought(owner_api, pulled):
    rows = cost(owner_api, pulled, group_by="day")["rows"]
    assert [(r["date"], r["spend"], r["installs"], r["revenue"]) for r in rows] == [
        # fb_c1 30 + g_c1 8; A and B, whose revenue is 10 USD + 4 EUR / 0.8
        (pulled.day1.isoformat(), 38.0, 2, 15.0),
        # fb_c2 20 EUR + g_c9 3 (+ 5 JPY unconverted); D and F (g_c2, JPY spend)
        (pulled.day3.isoformat(), 25.22, 2, 18.89)]


def test_by_media_source_pulled_and_uploaded_spend_is_mixed(owner_api, pulled):
    rows = {r["media_source"]: r for r in cost(owner_api, pulled, group_by="media_source")["rows"]}
    assert rows["google"]["cost_source"] == "mixed" and rows["google"]["spend"] == 11.0
    assert rows["facebook"]["cost_source"] == "csv"


def test_campaigns_sources_and_dashboard_count_the_pulled_spend(owner_api, pulled):
    campaigns = {c["campaign_id"]: c for c in owner_api.get(
        "/api/v1/analytics/campaigns", pulled.range).json()["data"]["campaigns"]}
    assert (campaigns["g_c1"]["cost"], campaigns["g_c1"]["cpi"], campaigns["g_c1"]["roas"],
            campaigns["g_c1"]["cost_source"]) == (8.0, 8.0, 62.5, "pull")
    assert (campaigns["g_c9"]["installs"], campaigns["g_c9"]["cost"]) == (0, 3.0)
    kpis = owner_api.get("/api/v1/analytics/dashboard", pulled.range).json()["data"]["kpis"]
    assert kpis["total_cost"] == 63.22  # was 62.22 with the upload's 10 for g_c1


def test_an_upload_of_a_pulled_day_and_campaign_says_it_is_shadowed(owner_api, pulled):
    day1 = pulled.day1.isoformat()
    response = owner_api.post("/api/v1/costs", {"app_id": str(pulled.app.id), "rows": [
        {"date": day1, "media_source": "google", "campaign_id": "g_c1", "cost": "50",
         "currency": "USD"},
        {"date": day1, "media_source": "google", "campaign_id": "g_c5", "cost": "1",
         "currency": "USD"},
        {"date": (pulled.day3).isoformat(), "media_source": "google", "cost": "9",
         "currency": "USD"}]}, format="json")
    assert response.json()["data"] == {
        "rows": 3, "created": 2, "updated": 1, "shadowed": 2, "shadowed_rows": [
            {"date": day1, "media_source": "google", "campaign_id": "g_c1"},
            {"date": pulled.day3.isoformat(), "media_source": "google", "campaign_id": ""}]}
    rows = {r["campaign_id"]: r for r in cost(owner_api, pulled)["rows"]}
    assert rows["g_c1"]["spend"] == 8.0 and rows["g_c5"]["spend"] == 1.0
    assert "" not in rows


def test_a_bad_group_by_is_refused_in_the_envelope(owner_api, scenario):
    response = owner_api.get(COST, {**scenario.range, "group_by": "week"})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "group_by": ["Must be one of media_source, campaign, adset, ad, day."]}


def test_an_outsider_gets_not_found(outsider_api, scenario):
    assert outsider_api.get(COST, scenario.range).status_code == 404


def test_days_are_taken_as_the_other_endpoints_take_them(owner_api, pulled):
    day3 = pulled.day3
    data = cost(owner_api, pulled, start_date=f"{day3}T23:30:00-02:00",
                end_date=(day3 + timedelta(days=1)).isoformat(), group_by="day")
    assert data["start_date"] == (day3 + timedelta(days=1)).isoformat()
    assert data["rows"] == []
