"""The console's fraud page: the report's figures for the range, the CTIT histogram as chart
data and as a table, hostile names shown as text, another organization's app a 404."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text
from tests.fraud.test_report import DAY, scene  # noqa: F401 - the report's hand-built fixture

pytestmark = pytest.mark.django_db

RANGE = {"range": "custom", "start": DAY.isoformat(), "end": "2026-03-11"}


@pytest.fixture
def console(client, owner):
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def outsider_app(outsider):
    from tests.factories import AppFactory

    return AppFactory(organization=outsider.organization)


def fraud_page(console, app, params=RANGE):
    response = console.get(reverse("console:fraud-report", args=[app.id]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_the_reports_figures_and_histogram(console, app, scene):  # noqa: F811
    html = fraud_page(console, app)
    assert "<h1>Fraud</h1>" in html
    tiles = dict(re.findall(r'<dt class="label">([^<]+)</dt><dd class="value">([^<]+)</dd>',
                            html))
    assert tiles["Installs"] == "9" and tiles["Blocked installs"] == "1"
    assert tiles["Post-attribution installs"] == "2" and tiles["Blocked clicks"] == "10"
    assert tiles["Requests refused for their signature"] == "5"
    chart = json.loads(re.search(r'<script id="ctit-data" type="application/json">(.*?)'
                                 r'</script>', html).group(1))
    assert chart == {"labels": ["0-10s", "10-60s", "1-10min", "10-60min", "1-24h", "1-7d"],
                     "installs": [1, 1, 1, 1, 1, 3]}
    assert "ctit_anomalies (blocked): 1" in html
    assert "click_flood (post-attribution): 2" in html
    assert "flooder" in html and 'aria-current="page">Fraud</a>' in html
    assert "Figures read the install records" in html


def test_an_empty_range_says_so(console, app):
    html = fraud_page(console, app, {"range": "custom", "start": "2026-01-01",
                                     "end": "2026-01-02"})
    assert "No installs, refused requests or click-flood findings in this range." in html


def test_hostile_source_and_campaign_are_shown_as_text(console, app):
    from tests.analytics.helpers import install

    row = install(app, datetime(2026, 3, 10, 12, tzinfo=UTC), "dev-x", source=XSS_SOURCE,
                  campaign=XSS_CAMPAIGN)
    type(row).objects.filter(id=row.id).update(fraud_status="blocked", fraud_reasons=[
        {"reason": XSS_CAMPAIGN, "value": 1, "sub_reason": ""}])
    assert_shown_as_text(fraud_page(console, app))


def test_another_organizations_app_is_a_404(console, outsider_app):
    response = console.get(reverse("console:fraud-report", args=[outsider_app.id]))
    assert response.status_code == 404


def test_a_visitor_not_logged_in_is_sent_to_the_login_page(client, app):
    response = client.get(reverse("console:fraud-report", args=[app.id]))
    assert response.status_code == 302 and "login" in response["Location"]
