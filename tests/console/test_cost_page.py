"""The Cost page (docs/console.md, "Cost page"): the cost report's rows as the API gives them,
the chart's data by day, group-by links that keep the range, names shown as text."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from analytics.costs import SpendRow, cost_rows_replace
from analytics.models import CampaignCost
from tests.analytics.helpers import build_scenario
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def scenario(app):
    s = build_scenario(app)
    cost_rows_replace(app_id=app.id, connection="google_ads", media_source="google",
                      account="123", days=[s.day1, s.day3], rows=[
                          SpendRow(day=s.day1, campaign_id="g_c1", adset_id="ag1",
                                   spend=Decimal("8"), currency="USD"),
                          SpendRow(day=s.day3, campaign_id="g_c9", adset_id="ag9",
                                   spend=Decimal("3"), currency="USD")])
    return s


def cost_page(console, scenario, **extra) -> str:
    response = console.get(reverse("console:cost-report", args=[scenario.app.id]), {
        "range": "custom", "start": scenario.day1.isoformat(),
        "end": scenario.day3.isoformat(), **extra})
    assert response.status_code == 200
    return response.content.decode()


def rows(html: str) -> list[str]:
    tbody = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split())
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", tbody, re.S)]


def test_the_cost_page_lists_campaigns_with_the_spend_that_counts(console, scenario):
    html = cost_page(console, scenario)
    assert rows(html) == [
        "facebook fb_c1 30.00 USD — — 1 30.00 USD 8.89 USD 29.63% Uploaded",
        "facebook fb_c2 22.22 USD — — 1 22.22 USD 20.00 USD 90.00% Uploaded",
        "google g_c1 8.00 USD 0 0 1 8.00 USD 5.00 USD 62.50% Pulled",
        "google g_c9 3.00 USD 0 0 0 — 0.00 USD 0.00% Pulled · cost without installs",
        "google g_c2 — — — 1 — 0.00 USD — Uploaded",
    ]
    assert "<strong>JPY</strong>: Spend 5.00" in html


def test_the_chart_has_spend_and_revenue_for_every_day_of_the_range(console, scenario):
    html = cost_page(console, scenario, group_by="media_source")
    data = json.loads(re.search(r'<script id="spend-data" type="application/json">(.*?)</script>',
                                html, re.S).group(1))
    assert data["labels"] == [scenario.day1.isoformat(), scenario.day2.isoformat(),
                              scenario.day3.isoformat()]
    assert data["spend"] == [38.0, None, 25.22]
    assert data["revenue"] == [15.0, None, 18.89]
    assert 'data-chart="spend"' in html and "chartjs-4.6.1/chart.umd.min.js" in html


def test_group_by_links_keep_the_range(console, scenario):
    html = cost_page(console, scenario, group_by="ad")
    assert 'aria-current="true" class="current">Ad</a>' in html
    assert f"start={scenario.day1.isoformat()}" in html.split('aria-label="Group by"')[1]
    assert rows(html)[2].startswith("google g_c1 ag1 (none) 8.00 USD")


def test_hostile_names_in_uploaded_cost_are_shown_as_text(console, scenario):
    CampaignCost.objects.create(app=scenario.app, day=scenario.day1, media_source=XSS_SOURCE,
                                campaign_id=XSS_CAMPAIGN, cost=Decimal("1"), currency="USD")
    html = cost_page(console, scenario)
    assert_shown_as_text(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
