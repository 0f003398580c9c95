"""The report pages (docs/console.md, "Report pages") against the analytics tests' hand-built
scenario: the figures are the API's, the range comes from the query string, hostile names show as
text, another organization's app is a 404, and every page says up to when its figures are
complete."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from analytics import queries, reading, rollups
from tests.analytics.helpers import at, build_scenario, click, install
from tests.console.helpers import XSS_CAMPAIGN, XSS_SOURCE, assert_shown_as_text

pytestmark = pytest.mark.django_db

PAGES = ("overview", "sources", "campaigns", "cohorts", "revenue", "exports", "cost-report")


@pytest.fixture
def scenario(app):
    return build_scenario(app)


def custom(scenario, **extra) -> dict:
    return {"range": "custom", "start": scenario.day1.isoformat(),
            "end": scenario.day3.isoformat(), **extra}


def page(console, name, app, params=None):
    response = console.get(reverse(f"console:{name}", args=[app.id]), params or {})
    assert response.status_code == 200
    return response.content.decode()


def body_rows(html: str) -> list[str]:
    """The text of each body row, tags dropped, spaces collapsed."""
    tbody = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", tbody, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]


@pytest.fixture
def hostile(app):
    today = timezone.now().date()
    click(app, at(today, 0), XSS_SOURCE, XSS_CAMPAIGN, "dev-x")
    install(app, at(today, 0, 30), "dev-x", source=XSS_SOURCE, campaign=XSS_CAMPAIGN)
    rollups.rebuild_app(app_id=app.id)
    return app


# --- Every page -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", PAGES)
def test_every_report_page_opens_with_the_range_chooser_and_data_through(console, scenario,
                                                                         name):
    html = page(console, name, scenario.app)
    assert 'aria-current="true" class="current">7 days</a>' in html
    assert 'name="start"' in html and 'name="end"' in html
    if name == "exports":
        assert "they include everything recorded up to the moment of the download" in html
    else:
        assert re.search(r"Figures include data through <time datetime=\"[^\"]+\">"
                         r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</time>", html)


def test_a_report_read_before_any_rollup_says_figures_are_being_rebuilt(console, app,
                                                                          settings):
    settings.ANALYTICS_REFRESH_ON_READ = False  # as where beat refreshes, before its first run
    html = page(console, "overview", app)
    assert "Figures are being rebuilt right now" in html


@pytest.mark.parametrize("name", PAGES)
def test_another_organizations_app_is_a_404_page(console, outsider_app, name):
    response = console.get(reverse(f"console:{name}", args=[outsider_app.id]))
    assert response.status_code == 404


@pytest.mark.parametrize("name", PAGES)
def test_a_visitor_who_is_not_logged_in_is_sent_to_the_login_page(client, app, name):
    response = client.get(reverse(f"console:{name}", args=[app.id]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("console:login"))


@pytest.mark.parametrize("name", PAGES)
def test_hostile_media_source_and_campaign_are_shown_as_text(console, hostile, name):
    html = page(console, name, hostile, {"range": "today"})
    assert_shown_as_text(html)
    if name in ("sources", "campaigns", "revenue"):
        assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    if name == "campaigns":
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize("name", PAGES)
def test_a_custom_range_ending_before_it_starts_is_refused_with_the_apis_message(
        console, app, name):
    html = page(console, name, app, {"range": "custom", "start": "2024-05-10",
                                     "end": "2024-05-01"})
    assert "That custom range was refused" in html
    assert "Must not be before start_date." in html
    assert 'value="2024-05-10"' in html  # what was typed stays in the form


def test_a_custom_range_too_long_or_not_a_date_is_refused(console, app):
    html = page(console, "overview", app, {"range": "custom", "start": "2020-01-01",
                                           "end": "2024-01-01"})
    assert "The range may cover at most 366 days" in html
    html = page(console, "overview", app, {"range": "custom", "start": "yesterday",
                                           "end": "2024-01-01"})
    assert "Must be an ISO 8601 date" in html


def test_the_custom_range_form_keeps_the_model_and_the_sort(console, app):
    html = page(console, "sources", app, {"model": "linear", "sort": "clicks", "dir": "asc"})
    assert '<input type="hidden" name="model" value="linear">' in html
    assert '<input type="hidden" name="sort" value="clicks">' in html
    assert 'href="?range=today&amp;model=linear&amp;sort=clicks&amp;dir=asc"' in html


# --- Overview ---------------------------------------------------------------------------------

def test_overview_tiles_are_the_dashboards_figures(console, scenario):
    html = page(console, "overview", scenario.app, custom(scenario))
    for label, value in [("Installs", "6"), ("Paid installs", "4"), ("Organic installs", "2"),
                         ("Clicks", "6"), ("Revenue", "39.39 USD"), ("Cost", "62.22 USD"),
                         ("Average CPI", "20.74 USD"), ("ROAS", "54.46%"),
                         ("Conversion rate", "66.67%")]:
        assert (f'<dt class="label">{label}</dt><dd class="value">{value}</dd>') in html
    # g_c2's cost is in JPY, which has no rate: CPI and ROAS say what they leave out.
    note = ('<dd class="note">Covers 3 of 4 paid installs: the rest have no cost in the report '
            'currency.</dd>')
    assert html.count(note) == 2
    assert html.count('class="notice unconverted"') == 1
    assert "for want of an exchange rate into USD" in html
    assert "<li><strong>BRL</strong>: Revenue 100.00</li>" in html
    assert "<li><strong>JPY</strong>: Cost 5.00</li>" in html


def test_overview_chart_data_and_its_table_give_every_day(console, scenario):
    html = page(console, "overview", scenario.app, custom(scenario))
    data = json.loads(re.search(r'<script id="daily-data" type="application/json">(.*?)'
                                r"</script>", html, re.S).group(1))
    assert data == {"labels": [d.isoformat() for d in
                               (scenario.day1, scenario.day2, scenario.day3)],
                    "paid": [2, 0, 2], "organic": [1, 0, 1], "revenue": [17.5, 0.0, 21.89],
                    "currency": "USD"}
    assert body_rows(html) == [f"{scenario.day1} 2 1 3 17.50", f"{scenario.day2} 0 0 0 0.00",
                               f"{scenario.day3} 2 1 3 21.89"]
    assert "charts.js" in html and "chart.umd.min.js" in html


def test_a_long_campaign_name_wraps_in_its_cell_with_the_whole_name_on_hover(console, app):
    today = timezone.now().date()
    long_campaign = "spring_" + "x" * 248
    click(app, at(today, 0), "facebook", long_campaign, "dev-l")
    install(app, at(today, 0, 30), "dev-l", source="facebook", campaign=long_campaign)
    rollups.rebuild_app(app_id=app.id)
    html = page(console, "campaigns", app, {"range": "today"})
    assert f'<td class="name" title="{long_campaign}">{long_campaign}</td>' in html


def test_a_one_day_overview_shows_the_day_as_figures_not_one_giant_bar(console, scenario):
    day = scenario.day1.isoformat()
    html = page(console, "overview", scenario.app,
                {"range": "custom", "start": day, "end": day})
    assert 'data-chart="daily"' not in html and 'id="daily-data"' not in html
    assert '<details class="daily-table" open>' in html
    assert body_rows(html) == [f"{scenario.day1} 2 1 3 17.50"]


def test_overview_without_data_points_to_keys_and_the_link_builder(console, app):
    html = page(console, "overview", app)
    assert "No clicks, installs or revenue in this range yet." in html
    assert reverse("console:keys", args=[app.id]) in html
    assert reverse("console:link-builder", args=[app.id]) in html
    for label in ("Average CPI", "ROAS", "Cost", "Conversion rate"):
        assert f'<dt class="label">{label}</dt><dd class="value">—</dd>' in html
    assert "Covers " not in html  # no paid install, none left out of CPI and ROAS


def test_overview_has_no_inline_script_or_style(console, scenario):
    html = page(console, "overview", scenario.app, custom(scenario))
    assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", html)
    assert "style=" not in html and " onclick=" not in html


# --- Sources and campaigns ---------------------------------------------------------------------

def test_sources_under_last_touch_are_the_sources_report(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario))
    assert body_rows(html) == [
        "facebook 2 4 50.00% 52.22 USD 26.11 USD 28.89 USD 55.32%",
        "google 2 2 100.00% 10.00 USD 5.00 USD 5.00 USD 50.00%",  # 4 EUR / 0.8
        "organic 2 0 — — — 2.50 USD —",
        "(revenue of no install) 0 0 — — — 3.00 USD —",
    ]
    assert html.count('class="notice unconverted"') == 1
    assert "<strong>JPY</strong>: google cost 5.00" in html
    assert "<strong>BRL</strong>: organic revenue 100.00" in html


def test_campaigns_under_last_touch_are_the_campaigns_report(console, owner_api, scenario):
    html = page(console, "campaigns", scenario.app, custom(scenario))
    api = owner_api.get("/api/v1/analytics/campaigns", scenario.range).json()["data"]
    rows = body_rows(html)
    assert len(rows) == len(api["campaigns"])
    for row, expected in zip(rows, api["campaigns"], strict=True):
        assert row.startswith(f"{expected['media_source']} {expected['campaign_id']} "
                              f"{expected['installs']} {expected['clicks']} ")


def test_the_model_switch_credits_campaign_installs_by_first_touch(console, scenario):
    html = page(console, "campaigns", scenario.app, custom(scenario, model="first-touch"))
    assert 'aria-current="true" class="current">First touch</a>' in html
    # dev-A's earliest touchpoint is google/g_c1, three days before it installed: fb_c1 (the
    # waterfall's verdict) keeps its clicks and cost but is credited no install.
    assert body_rows(html) == [
        "google g_c1 2 2 100.00% 10.00 USD 5.00 USD 13.89 USD 138.89%",
        "facebook fb_c2 1 1 100.00% 22.22 USD 22.22 USD 20.00 USD 90.00%",
        "google g_c2 1 0 — — — 0.00 USD —",
        "facebook fb_c1 0 3 0.00% 30.00 USD — 0.00 USD 0.00%",
    ]
    assert "First touch: installs and revenue of paid rows are the shares" in html


def test_linear_credit_shares_source_installs_and_leaves_organic_alone(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario, model="linear"))
    # dev-A's three touchpoints give google 1/3 and facebook 2/3 of its install and revenue.
    assert body_rows(html) == [
        "google 2.33 2 116.67% 10.00 USD 4.29 USD 7.96 USD 79.63%",
        "facebook 1.67 4 41.67% 52.22 USD 31.33 USD 25.93 USD 49.65%",
        "organic 2 0 — — — 2.50 USD —",
        "(revenue of no install) 0 0 — — — 3.00 USD —",
    ]


@pytest.mark.parametrize("model", ["last-touch", "first-touch", "linear", "time-decay"])
def test_every_model_credits_all_paid_installs_and_their_revenue(scenario, model):
    period = queries.Period(app_id=scenario.app.id, start=scenario.day1, end=scenario.day3)
    rows = reading.performance(period=period, currency="USD", by_campaign=True, model=model)
    assert sum(row.installs for row in rows) == 4
    assert sum((row.revenue.amount for row in rows), Decimal(0)).quantize(Decimal("0.01")) == \
        Decimal("33.89")


def test_an_unknown_model_shows_last_touch(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario, model="everything"))
    assert 'aria-current="true" class="current">Last touch</a>' in html


def test_sorting_by_a_column_orders_rows_and_marks_the_header(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario, sort="revenue", dir="asc"))
    assert [row.split()[0] for row in body_rows(html)] == ["organic", "(revenue", "google",
                                                           "facebook"]
    assert re.search(r'<th scope="col" class="num" aria-sort="ascending"><a href="[^"]*'
                     r'sort=revenue&amp;dir=desc"', html)
    assert html.count("aria-sort=") == 1


def test_missing_figures_sort_last_in_either_direction(console, scenario):
    for direction in ("asc", "desc"):
        html = page(console, "sources", scenario.app,
                    custom(scenario, sort="cpi", dir=direction))
        names = [row.split()[0] for row in body_rows(html)]
        assert names[2:] == ["organic", "(revenue"]


def test_sort_links_keep_the_range_and_model_and_swap_the_table_with_htmx(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario, model="linear"))
    link = (f"?range=custom&amp;start={scenario.day1}&amp;end={scenario.day3}&amp;"
            "model=linear&amp;sort=installs&amp;dir=desc")
    assert (f'href="{link}" id="sort-installs" hx-get="{link}" hx-select="#report" '
            'hx-target="#report" hx-swap="outerHTML"') in html
    assert 'hx-push-url="true"' in html


def test_an_unknown_sort_column_keeps_the_reports_order(console, scenario):
    html = page(console, "sources", scenario.app, custom(scenario, sort="nonsense"))
    assert body_rows(html)[0].startswith("facebook")
    assert "aria-sort=" not in html


# --- Cohorts ----------------------------------------------------------------------------------

def test_cohorts_show_retention_as_text_with_a_colour_class(console, scenario):
    html = page(console, "cohorts", scenario.app, custom(scenario))
    rows = body_rows(html)
    # day1: A, B, C installed; A had an event on day3 (D2), C on day3: D1 is 0 of 3.
    assert rows[0].startswith(f"{scenario.day1} 3 ")
    assert rows[1] == f"{scenario.day2} 0 — — —"
    assert re.search(r'<td class="num heat-\d+">\d+\.\d\d%</td>', html)


def test_days_that_are_not_over_show_not_yet(console, app):
    today = timezone.now().date()
    install(app, at(today, 0, 30), "dev-new")
    rollups.rebuild_app(app_id=app.id)
    html = page(console, "cohorts", app, {"range": "today"})
    assert body_rows(html) == [f"{today} 1 not yet not yet not yet"]
    assert html.count('class="num heat-none">not yet</td>') == 6  # the row and the summary


def test_a_mature_cohort_gets_a_heat_class_by_tenths(console, app):
    day = timezone.now().date() - timedelta(days=40)
    for n in range(4):
        install(app, at(day, 1, n), f"dev-{n}")
    rollups.rebuild_app(app_id=app.id)
    html = page(console, "cohorts", app, {"range": "custom", "start": day.isoformat(),
                                          "end": day.isoformat()})
    assert '<td class="num heat-0">0.00%</td>' in html


# --- Revenue ----------------------------------------------------------------------------------

def test_revenue_shows_totals_ltv_by_source_and_unconverted_amounts_apart(console, owner_api,
                                                                         scenario):
    html = page(console, "revenue", scenario.app, custom(scenario))
    api = owner_api.get("/api/v1/analytics/revenue", scenario.range).json()["data"]
    assert f'<dt class="label">Revenue</dt><dd class="value">{api["total_revenue"]:.2f} USD' \
        in html
    assert f'<dt class="label">ARPU</dt><dd class="value">{api["arpu"]:.2f} USD' in html
    rows = body_rows(html)
    assert [row.split()[0] for row in rows] == [s["media_source"] for s in api["by_source"]]
    assert html.count('class="notice unconverted"') == 1
    assert "<strong>BRL</strong>: Revenue of the range 100.00; " in html
    assert any(row.startswith("organic 2 ") and row.endswith("100.00 BRL") for row in rows)


def test_revenue_without_installs_has_a_dash_for_ltv_and_arpu(console, app):
    html = page(console, "revenue", app)
    assert '<dt class="label">ARPU</dt><dd class="value">—</dd>' in html
    assert "No installs in this range." in html


# --- Exports ----------------------------------------------------------------------------------

def test_exports_page_links_each_csv_with_the_range(console, scenario):
    html = page(console, "exports", scenario.app, custom(scenario))
    for kind in ("installs", "events", "revenue"):
        url = reverse("console:export-download", args=[scenario.app.id, kind])
        assert (f'href="{url}?range=custom&amp;start={scenario.day1}&amp;'
                f'end={scenario.day3}"') in html


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("kind", ["installs", "events", "revenue"])
def test_an_export_streams_the_apis_csv(console, owner_api, scenario, kind, debug, settings):
    # DEBUG=1 as `make run` runs: Django's SQL logging formats each statement with %, which a
    # literal % in the SQL text (SQLite's strftime format) once broke with a 500.
    settings.DEBUG = debug
    url = reverse("console:export-download", args=[scenario.app.id, kind])
    response = console.get(url, custom(scenario))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    ours = b"".join(response.streaming_content)
    api = owner_api.get("/api/v1/analytics/export", {**scenario.range, "type": kind})
    assert ours == b"".join(api.streaming_content)
    assert response["Content-Disposition"] == api["Content-Disposition"]


def test_an_unknown_export_type_is_a_404(console, app):
    response = console.get(reverse("console:export-download", args=[app.id, "secrets"]))
    assert response.status_code == 404


def test_another_organizations_export_is_a_404(console, outsider_app):
    response = console.get(reverse("console:export-download",
                                   args=[outsider_app.id, "installs"]))
    assert response.status_code == 404


def test_an_export_of_a_refused_range_goes_back_to_the_page_that_says_why(console, app):
    response = console.get(reverse("console:export-download", args=[app.id, "installs"]),
                           {"range": "custom", "start": "2024-05-10", "end": "2024-05-01"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("console:exports", args=[app.id]))
    assert "start=2024-05-10" in response["Location"]


def test_an_export_needs_a_login(client, app):
    response = client.get(reverse("console:export-download", args=[app.id, "installs"]))
    assert response.status_code == 302
