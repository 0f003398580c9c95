"""Every analytics endpoint against the hand-built scenario (see conftest.py for the story and
the rates). Expected figures are worked out by hand in the comments."""

import pytest

from analytics.models import AppReportSettings

pytestmark = pytest.mark.django_db

BASE = "/api/v1/analytics"


def get(client, endpoint, params):
    response = client.get(f"{BASE}/{endpoint}", params)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["success"] is True
    return body["data"]


def test_every_response_names_its_range_timezone_and_currency(owner_api, scenario):
    for endpoint in ("dashboard", "sources", "campaigns", "retention", "revenue",
                     "attribution"):
        data = get(owner_api, endpoint, scenario.range)
        assert data["app_id"] == str(scenario.app.id)
        assert data["start_date"] == scenario.day1.isoformat()
        assert data["end_date"] == scenario.day3.isoformat()
        assert data["timezone"] == "UTC"
        assert data["currency"] == "USD"
        assert data["data_through"].endswith("Z")


def test_dashboard_kpis_and_a_series_with_every_day(owner_api, scenario):
    data = get(owner_api, "dashboard", scenario.range)
    assert data["kpis"] == {
        "total_installs": 6,
        "paid_installs": 4,
        "organic_installs": 2,
        # day1: 10 + 4 EUR/0.8 + 2.50 = 17.50; day3: 8 EUR/0.9 - 10 + 20 + 3 = 21.888...
        "total_revenue": 39.39,
        # (30 + 20 EUR/0.9 + 10) / 3: g_c2's installs are not counted, its cost is in JPY
        # (no rate), so the figure covers 3 of the 4 paid installs
        "average_cpi": 20.74,
        "conversion_rate": 66.67,  # 4 paid installs / 6 clicks
        "total_clicks": 6,
        "total_cost": 62.22,
        # the same three campaigns' revenue: 10 + 8 EUR/0.9 - 10 (A), 20 (D), 4 EUR/0.8 (B)
        # = 33.888... over their cost 62.222...
        "roas": 54.46,
        "cost_covered_installs": 3,
        "blocked_installs": 0,
        "post_attribution_installs": 0,
    }
    assert data["timeSeries"] == [
        {"date": scenario.day1.isoformat(), "installs": 3, "paid_installs": 2,
         "organic_installs": 1, "revenue": 17.5},
        {"date": scenario.day2.isoformat(), "installs": 0, "paid_installs": 0,
         "organic_installs": 0, "revenue": 0.0},
        {"date": scenario.day3.isoformat(), "installs": 3, "paid_installs": 2,
         "organic_installs": 1, "revenue": 21.89},
    ]
    assert data["unconverted_revenue"] == [{"currency": "BRL", "amount": 100.0}]
    assert data["unconverted_cost"] == [{"currency": "JPY", "amount": 5.0}]


def test_a_day_without_data_is_all_zeros_its_kpis_numbers_as_the_reference_types_them(
        owner_api, scenario):
    day2 = scenario.day2.isoformat()
    data = get(owner_api, "dashboard", {**scenario.range, "start_date": day2, "end_date": day2})
    assert data["kpis"] == {"total_installs": 0, "paid_installs": 0, "organic_installs": 0,
                            "total_revenue": 0.0, "average_cpi": 0.0, "conversion_rate": 0.0,
                            "total_clicks": 0, "total_cost": 0.0, "roas": None,
                            "cost_covered_installs": 0, "blocked_installs": 0,
                            "post_attribution_installs": 0}
    assert data["timeSeries"] == [{"date": day2, "installs": 0, "paid_installs": 0,
                                   "organic_installs": 0, "revenue": 0.0}]
    assert data["unconverted_revenue"] == [] and data["unconverted_cost"] == []


def test_sources_have_organic_and_unlinked_revenue_as_their_own_rows(owner_api, scenario):
    data = get(owner_api, "sources", scenario.range)
    assert data["sources"] == [
        {"media_source": "facebook", "source_type": "paid", "installs": 2, "clicks": 4,
         "conversion_rate": 50.0,
         # A: 10 + 8 EUR/0.9 - 10 = 8.888...; D: 20
         "revenue": 28.89,
         "cost": 52.22,  # 30 + 20 EUR / 0.9
         "cost_source": "csv",
         "cpi": 26.11, "roas": 55.32,  # (260/9) / (470/9)
         "unconverted_revenue": [], "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
        {"media_source": "google", "source_type": "paid", "installs": 2, "clicks": 2,
         "conversion_rate": 100.0, "revenue": 5.0, "cost": 10.0, "cost_source": "csv",
         "cpi": 5.0, "roas": 50.0,
         "unconverted_revenue": [], "unconverted_cost": [{"currency": "JPY", "amount": 5.0}],
         "blocked_installs": 0, "post_attribution_installs": 0},
        {"media_source": "organic", "source_type": "organic", "installs": 2, "clicks": 0,
         "conversion_rate": None, "revenue": 2.5, "cost": None, "cost_source": None,
         "cpi": None, "roas": None,
         "unconverted_revenue": [{"currency": "BRL", "amount": 100.0}],
         "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
        {"media_source": None, "source_type": "no_install", "installs": 0, "clicks": 0,
         "conversion_rate": None, "revenue": 3.0, "cost": None, "cost_source": None,
         "cpi": None, "roas": None,
         "unconverted_revenue": [], "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
    ]


def test_sources_add_up_to_the_dashboard(owner_api, scenario):
    sources = get(owner_api, "sources", scenario.range)["sources"]
    kpis = get(owner_api, "dashboard", scenario.range)["kpis"]
    assert sum(s["installs"] for s in sources) == kpis["total_installs"]
    assert sum(s["clicks"] for s in sources) == kpis["total_clicks"]
    assert round(sum(s["revenue"] for s in sources), 2) == kpis["total_revenue"]


def test_campaigns_with_cost_cpi_and_roas(owner_api, scenario):
    data = get(owner_api, "campaigns", scenario.range)
    assert data["campaigns"] == [
        {"media_source": "facebook", "campaign_id": "fb_c1", "campaign_name": None,
         "source_type": "paid",
         "installs": 1, "clicks": 3, "conversion_rate": 33.33, "revenue": 8.89,
         "cost": 30.0, "cost_source": "csv", "cpi": 30.0, "roas": 29.63,
         "unconverted_revenue": [],
         "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
        {"media_source": "facebook", "campaign_id": "fb_c2", "campaign_name": None,
         "source_type": "paid",
         "installs": 1, "clicks": 1, "conversion_rate": 100.0, "revenue": 20.0,
         "cost": 22.22, "cost_source": "csv", "cpi": 22.22, "roas": 90.0,
         "unconverted_revenue": [],
         "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
        {"media_source": "google", "campaign_id": "g_c1", "campaign_name": None,
         "source_type": "paid",
         "installs": 1, "clicks": 2, "conversion_rate": 50.0, "revenue": 5.0,
         "cost": 10.0, "cost_source": "csv", "cpi": 10.0, "roas": 50.0,
         "unconverted_revenue": [],
         "unconverted_cost": [], "blocked_installs": 0,
         "post_attribution_installs": 0},
        # An install without any click, and a cost only in a currency without a rate: the
        # cost is unknown (null), not zero, and shown apart.
        {"media_source": "google", "campaign_id": "g_c2", "campaign_name": None,
         "source_type": "paid",
         "installs": 1, "clicks": 0, "conversion_rate": None, "revenue": 0.0,
         "cost": None, "cost_source": "csv", "cpi": None, "roas": None,
         "unconverted_revenue": [],
         "unconverted_cost": [{"currency": "JPY", "amount": 5.0}], "blocked_installs": 0,
         "post_attribution_installs": 0},
    ]


def test_a_campaign_without_imported_cost_has_null_cost_cpi_and_roas(owner_api, scenario):
    from analytics.models import CampaignCost

    CampaignCost.objects.filter(campaign_id="fb_c1").delete()
    row = get(owner_api, "campaigns", scenario.range)["campaigns"][0]
    assert row["campaign_id"] == "fb_c1"
    assert (row["cost"], row["cpi"], row["roas"]) == (None, None, None)


def test_revenue_totals_arpu_and_lifetime_value_by_source(owner_api, scenario):
    data = get(owner_api, "revenue", scenario.range)
    assert {k: v for k, v in data.items() if k not in {
        "app_id", "start_date", "end_date", "timezone", "currency", "data_through",
        "by_source"}} == {
        "total_revenue": 39.39,
        "gross_revenue": 49.39,  # 17.50 + 8.888... + 20 + 3
        "refunds": -10.0,
        "revenue_events": 8,
        "installs": 6,
        "arpu": 6.56,  # 39.3888... / 6
        # Lifetime revenue of the range's installs, to date: 13.888... (A, with its purchase
        # after the range) + 20 (D) + 5 (B) + 2.50 (C); the ghost's event has no install.
        "cohort_revenue": 41.39,
        "ltv": 6.9,  # 41.3888... / 6
        "unconverted_revenue": [{"currency": "BRL", "amount": 100.0}],
        "unconverted_cohort_revenue": [{"currency": "BRL", "amount": 100.0}],
        # No install of the scenario was blocked or taken back (tests/analytics/test_counting.py).
        "blocked_revenue": 0.0, "post_attribution_revenue": 0.0,
        "unconverted_blocked_revenue": [], "unconverted_post_attribution_revenue": [],
    }
    assert data["by_source"] == [
        # Cohort ROAS: revenue to date / the spend of the range: (305/9) / (470/9).
        {"media_source": "facebook", "source_type": "paid", "installs": 2,
         "cohort_revenue": 33.89, "ltv": 16.94, "unconverted_cohort_revenue": [],
         "cost": 52.22, "roas": 64.89, "unconverted_cost": []},
        {"media_source": "google", "source_type": "paid", "installs": 2,
         "cohort_revenue": 5.0, "ltv": 2.5, "unconverted_cohort_revenue": [],
         "cost": 10.0, "roas": 50.0, "unconverted_cost": [{"currency": "JPY", "amount": 5.0}]},
        {"media_source": "organic", "source_type": "organic", "installs": 2,
         "cohort_revenue": 2.5, "ltv": 1.25,
         "unconverted_cohort_revenue": [{"currency": "BRL", "amount": 100.0}],
         "cost": None, "roas": None, "unconverted_cost": []},
    ]


def test_figures_follow_the_apps_report_currency(owner_api, scenario):
    AppReportSettings.objects.create(app=scenario.app, currency="EUR")
    data = get(owner_api, "dashboard", scenario.range)
    assert data["currency"] == "EUR"
    # day1 (0.8 EUR per USD): 10 USD -> 8, 4 EUR, 2.50 USD -> 2 = 14
    # day3 (0.9): 8 EUR, -10 USD -> -9, 20 USD -> 18, 3 USD -> 2.70 = 19.70
    assert [d["revenue"] for d in data["timeSeries"]] == [14.0, 0.0, 19.7]
    assert data["kpis"]["total_revenue"] == 33.7
    # 30 USD -> 24, 20 EUR, 10 USD -> 8 = 52 EUR over the 3 paid installs it covers
    assert data["kpis"]["total_cost"] == 52.0
    assert data["kpis"]["average_cpi"] == 17.33


LAST_TOUCH = [
    {"media_source": "facebook", "campaign_id": "fb_c1", "credited_installs": 1.0,
     "credited_revenue": 8.89, "unconverted_revenue": []},
    {"media_source": "facebook", "campaign_id": "fb_c2", "credited_installs": 1.0,
     "credited_revenue": 20.0, "unconverted_revenue": []},
    {"media_source": "google", "campaign_id": "g_c1", "credited_installs": 1.0,
     "credited_revenue": 5.0, "unconverted_revenue": []},
    {"media_source": "google", "campaign_id": "g_c2", "credited_installs": 1.0,
     "credited_revenue": 0.0, "unconverted_revenue": []},
]
# A's touchpoints: google/g_c1 74 h before its install, facebook/fb_c2 24 h, facebook/fb_c1
# 6 h (the waterfall's choice). B, D and F each have one touchpoint (D's is its fingerprint
# click; the google click 8 days before D is outside the window; F's is its referrer verdict).
# A's revenue in the range is 8.888... (10 + 8 EUR/0.9 - 10).
FIRST_TOUCH = [
    {"media_source": "google", "campaign_id": "g_c1", "credited_installs": 2.0,
     "credited_revenue": 13.89, "unconverted_revenue": []},  # A and B; 8.888... + 5
    {"media_source": "facebook", "campaign_id": "fb_c2", "credited_installs": 1.0,
     "credited_revenue": 20.0, "unconverted_revenue": []},
    {"media_source": "google", "campaign_id": "g_c2", "credited_installs": 1.0,
     "credited_revenue": 0.0, "unconverted_revenue": []},
]
LINEAR = [  # A's third each: 0.3333 installs and 2.962962... revenue
    {"media_source": "google", "campaign_id": "g_c1", "credited_installs": 1.3333,
     "credited_revenue": 7.96, "unconverted_revenue": []},
    {"media_source": "facebook", "campaign_id": "fb_c2", "credited_installs": 1.3333,
     "credited_revenue": 22.96, "unconverted_revenue": []},
    {"media_source": "google", "campaign_id": "g_c2", "credited_installs": 1.0,
     "credited_revenue": 0.0, "unconverted_revenue": []},
    {"media_source": "facebook", "campaign_id": "fb_c1", "credited_installs": 0.3333,
     "credited_revenue": 2.96, "unconverted_revenue": []},
]
# Half-life 24 h: weights 2^(-74/24), 2^(-1), 2^(-6/24) = 0.11785, 0.5, 0.84090, normalised
# to 0.080873, 0.342729, 0.576398 of A.
TIME_DECAY = [
    {"media_source": "facebook", "campaign_id": "fb_c2", "credited_installs": 1.3427,
     "credited_revenue": 23.05, "unconverted_revenue": []},  # 20 + 0.342729 x 8.888...
    {"media_source": "google", "campaign_id": "g_c1", "credited_installs": 1.0809,
     "credited_revenue": 5.72, "unconverted_revenue": []},  # 5 + 0.080873 x 8.888...
    {"media_source": "google", "campaign_id": "g_c2", "credited_installs": 1.0,
     "credited_revenue": 0.0, "unconverted_revenue": []},
    {"media_source": "facebook", "campaign_id": "fb_c1", "credited_installs": 0.5764,
     "credited_revenue": 5.12, "unconverted_revenue": []},  # 0.576398 x 8.888...
]


@pytest.mark.parametrize("model,rows,half_life", [
    (None, LAST_TOUCH, None),
    ("last-touch", LAST_TOUCH, None),
    ("first-touch", FIRST_TOUCH, None),
    ("linear", LINEAR, None),
    ("time-decay", TIME_DECAY, 24),
])
def test_attribution_models_share_installs_and_revenue(owner_api, scenario, model, rows,
                                                       half_life):
    params = scenario.range if model is None else {**scenario.range, "model": model}
    data = get(owner_api, "attribution", params)
    assert data["model"] == (model or "last-touch")
    assert data["half_life_hours"] == half_life
    assert data["window_days"] == 7
    assert data["rows"] == rows
    # Fractions add up to exactly the attributed installs; revenue adds up to the attributed
    # installs' revenue (8.888... + 5 + 20) whatever the model.
    assert data["attributed_installs"] == 4
    assert data["organic_installs"] == 2
    assert data["credited_installs"] == 4.0
    assert data["credited_revenue"] == 33.89


def test_last_touch_agrees_with_the_campaigns_report(owner_api, scenario):
    campaigns = get(owner_api, "campaigns", scenario.range)["campaigns"]
    attribution = get(owner_api, "attribution", scenario.range)["rows"]
    assert sorted((c["media_source"], c["campaign_id"], c["installs"], c["revenue"])
                  for c in campaigns) == sorted(
        (r["media_source"], r["campaign_id"], r["credited_installs"], r["credited_revenue"])
        for r in attribution)


def test_another_organizations_app_is_not_found(outsider_api, scenario):
    for endpoint in ("dashboard", "sources", "campaigns", "retention", "revenue",
                     "attribution"):
        response = outsider_api.get(f"{BASE}/{endpoint}", scenario.range)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"
    response = outsider_api.get(f"{BASE}/export", {**scenario.range, "type": "installs"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_analytics_need_a_token(api, scenario):
    response = api.get(f"{BASE}/dashboard", scenario.range)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_another_apps_data_never_leaks_in(owner_api, owner, scenario):
    from tests.factories import AppFactory

    other = AppFactory(organization=owner.organization)
    data = get(owner_api, "dashboard", {**scenario.range, "app_id": str(other.id)})
    assert data["kpis"]["total_installs"] == 0
    assert data["kpis"]["total_clicks"] == 0
    assert data["kpis"]["total_cost"] == 0.0
