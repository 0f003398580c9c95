"""Which cost counts (analytics/costs/precedence.py): pulled over uploaded over none. Pure."""

from datetime import date
from decimal import Decimal

from analytics.costs.precedence import (
    CSV,
    PULL,
    CostFigure,
    PulledKeys,
    counted,
    shadowed,
    source_of,
)

DAY, NEXT = date(2026, 3, 1), date(2026, 3, 2)


def figure(source, day=DAY, media_source="meta", campaign_id="c1", spend="10"):
    return CostFigure(day=day, media_source=media_source, campaign_id=campaign_id,
                      currency="USD", spend=Decimal(spend), source=source)


def test_a_pulled_campaign_day_outranks_the_upload_of_the_same_key():
    pulled = [figure(PULL, spend="12")]
    uploaded = [figure(CSV, spend="99"), figure(CSV, day=NEXT, spend="7")]
    assert counted(pulled=pulled, uploaded=uploaded) == [pulled[0], uploaded[1]]


def test_an_upload_counts_where_no_pull_covers_its_campaign_or_source():
    uploaded = [figure(CSV, campaign_id="c2"), figure(CSV, media_source="tiktok")]
    assert counted(pulled=[figure(PULL)], uploaded=uploaded) == [figure(PULL), *uploaded]


def test_an_upload_without_campaign_is_outranked_by_any_pull_of_its_day_and_source():
    whole_source = figure(CSV, campaign_id="")
    assert counted(pulled=[figure(PULL, campaign_id="c9")], uploaded=[whole_source]) == [
        figure(PULL, campaign_id="c9")]
    assert counted(pulled=[figure(PULL, day=NEXT)], uploaded=[whole_source]) == [
        figure(PULL, day=NEXT), whole_source]


def test_without_pulls_every_upload_counts_and_none_is_shadowed():
    uploaded = [figure(CSV), figure(CSV, campaign_id="")]
    assert counted(pulled=[], uploaded=uploaded) == uploaded
    assert shadowed(uploaded=[(DAY, "meta", "c1")], pulled=PulledKeys.of([])) == []


def test_shadowed_names_the_uploaded_keys_a_pull_covers_in_their_order():
    pulled = PulledKeys.of([(DAY, "meta", "c1"), (NEXT, "google", "g1")])
    keys = [(NEXT, "google", ""), (DAY, "meta", "c2"), (DAY, "meta", "c1"), (NEXT, "meta", "")]
    assert shadowed(uploaded=keys, pulled=pulled) == [(NEXT, "google", ""), (DAY, "meta", "c1")]


def test_a_row_summing_figures_says_where_its_cost_came_from():
    assert source_of([]) is None
    assert source_of([PULL, PULL]) == "pull"
    assert source_of([CSV]) == "csv"
    assert source_of([PULL, CSV]) == "mixed"
