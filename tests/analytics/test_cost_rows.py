"""Pulled spend is written through analytics.costs.cost_rows_replace: a connection's days
replaced whole, all or nothing, in batches."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from analytics import costs
from analytics.costs import CostRowsRefused, SpendRow, cost_rows_replace, row_problem
from analytics.models import PulledCost

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 1)
DAYS = [DAY, DAY + timedelta(days=1)]


def spend(day=DAY, campaign="c1", ad="a1", amount="10.50", **more):
    return SpendRow(day=day, campaign_id=campaign, adset_id="s1", ad_id=ad,
                    spend=Decimal(amount), currency="USD", **more)


def replace(app, rows, *, connection="meta", days=DAYS):
    return cost_rows_replace(app_id=app.id, connection=connection, media_source="meta",
                             account="act_1", days=days, rows=rows)


def stored(app):
    return sorted((r.connection, r.day, r.campaign_id, r.ad_id, r.spend)
                  for r in PulledCost.objects.filter(app=app))


def test_a_pull_stores_its_rows_and_says_how_much(app):
    outcome = replace(app, [spend(impressions=100, clicks=3, campaign_name="Spring"),
                            spend(ad="a2", amount="1"), spend(day=DAYS[1], amount="2")])
    assert outcome.rows == 3 and outcome.removed == 0
    assert outcome.spend == {"USD": Decimal("13.5")}
    row = PulledCost.objects.get(app=app, ad_id="a1", day=DAY)
    assert (row.media_source, row.account, row.impressions, row.clicks, row.campaign_name) == (
        "meta", "act_1", 100, 3, "Spring")


def test_a_restated_day_replaces_the_old_figures_and_a_now_empty_day_loses_its_rows(app):
    replace(app, [spend(amount="10"), spend(ad="a2"), spend(day=DAYS[1])])
    outcome = replace(app, (row for row in [spend(amount="12")]))  # a generator, as pages
    assert outcome.removed == 3 and outcome.rows == 1
    assert stored(app) == [("meta", DAY, "c1", "a1", Decimal("12"))]


def test_days_outside_the_pull_and_other_connections_are_left_alone(app):
    replace(app, [spend(day=DAY - timedelta(days=1))], days=[DAY - timedelta(days=1)])
    replace(app, [spend(amount="3")], connection="meta-2")
    replace(app, [spend(amount="4")])
    assert stored(app) == [("meta", DAY - timedelta(days=1), "c1", "a1", Decimal("10.5")),
                           ("meta", DAY, "c1", "a1", Decimal("4")),
                           ("meta-2", DAY, "c1", "a1", Decimal("3"))]


def test_a_key_repeated_in_a_pull_counts_once_the_last_one_winning(app, monkeypatch):
    monkeypatch.setattr(costs.store, "BATCH_ROWS", 2)  # the repeat spans two batches too
    outcome = replace(app, [spend(amount="1"), spend(amount="2"), spend(ad="a2"),
                            spend(amount="5")])
    assert outcome.rows == 2
    assert stored(app) == [("meta", DAY, "c1", "a1", Decimal("5")),
                           ("meta", DAY, "c1", "a2", Decimal("10.5"))]


@pytest.mark.parametrize(("row", "words"), [
    (spend(day=date(2026, 4, 1)), "outside the days the pull covers"),
    (spend(amount="-1"), "spend must be a Decimal of 0 or more"),
    (SpendRow(day=DAY, campaign_id="c1", spend=Decimal(1), currency="usd"), "ISO 4217"),
    (SpendRow(day=DAY, campaign_id="", spend=Decimal(1), currency="USD"), "campaign_id"),
])
def test_a_bad_row_refuses_the_whole_pull_and_keeps_what_was_there(app, row, words):
    replace(app, [spend(amount="7")])
    with pytest.raises(CostRowsRefused, match=words):
        replace(app, [spend(ad="a2"), row])
    assert stored(app) == [("meta", DAY, "c1", "a1", Decimal("7"))]


def test_only_the_media_sources_attribution_writes_are_taken(app):
    with pytest.raises(CostRowsRefused, match="media_source"):
        cost_rows_replace(app_id=app.id, connection="fb", media_source="facebook",
                          account="act_1", days=DAYS, rows=[spend()])


def test_row_problem_is_the_check_parsers_can_ask():
    assert row_problem(spend()) is None
    assert row_problem(spend(ad="x" * 256)) == "ad_id is longer than 255 characters"
