"""The web-to-app report's arithmetic: rows by visit source, totals and rates."""

from __future__ import annotations

import pytest

from web_to_app import report


def test_counts_become_one_row_per_source_busiest_first():
    rows = report.rows_of({
        "banner_views": {"google": 10, None: 40, "": 2},
        "banner_clicks": {"google": 5, None: 4},
        "installs_from_banner": {"google": 2},
        "installs_joined_by_customer_id": {"meta": 1},
    })
    assert [r.visit_media_source for r in rows] == ["organic", "google", "meta"]
    organic, google, meta = rows
    assert (organic.banner_views, organic.banner_clicks) == (42, 4)
    assert google.click_rate == 0.5 and google.install_rate == 0.4
    assert meta.banner_views == 0 and meta.click_rate is None and meta.install_rate is None
    assert meta.installs_joined_by_customer_id == 1


def test_the_total_adds_every_measure_and_rates_from_the_sums():
    rows = report.rows_of({"banner_views": {"a": 3, "b": 1}, "banner_clicks": {"a": 1, "b": 1},
                           "banner_dismissals": {"b": 1}})
    total = report.total_of(rows)
    assert (total.banner_views, total.banner_clicks, total.banner_dismissals) == (4, 2, 1)
    assert report.row_answer(total) == {
        "banner_views": 4, "banner_clicks": 2, "banner_dismissals": 1,
        "installs_from_banner": 0, "installs_joined_by_customer_id": 0,
        "click_rate": 0.5, "install_rate": 0.0}


def test_no_data_is_an_empty_report_without_rates():
    total = report.total_of(report.rows_of({}))
    assert total.banner_views == 0 and total.click_rate is None


def test_an_unknown_measure_is_a_bug():
    with pytest.raises(ValueError):
        report.rows_of({"visits": {"a": 1}})
