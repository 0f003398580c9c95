"""A link's report: its clicks, installs and deep-link opens by UTC day with totals, exact, from
the link's own rows only, through the indexes that start with the link."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection

from links import report
from links.models import Link, LinkOpen
from tracking.models import ClickArchive, Install
from tracking.reporting import link_rows

pytestmark = pytest.mark.django_db

DAY = datetime(2025, 6, 10, tzinfo=UTC)


@pytest.fixture
def link(app):
    return Link.objects.create(app=app, code="summer", media_source="instagram")


def click(app, at, link=None):
    ClickArchive.objects.create(app=app, media_source="instagram", clicked_at=at,
                                link_id=link.id if link else None)


def install(app, at, link=None):
    Install.objects.create(app=app, platform="android", sdk_version="1.0", match_type="organic",
                           installed_at=at, link_id=link.id if link else None)


def open_(link, at):
    LinkOpen.objects.create(link=link, app_id=link.app_id, opened_at=at)


def get_report(api, link, start="2025-06-10", end="2025-06-12"):
    return api.get(f"/api/v1/links/{link.id}/report", {"start_date": start, "end_date": end})


def test_clicks_installs_and_opens_of_the_link_are_counted_exactly(owner_api, app, link):
    other = Link.objects.create(app=app, code="autumn", media_source="x")
    for minute in range(7):
        click(app, DAY + timedelta(minutes=minute), link=link)
    click(app, DAY + timedelta(days=1, hours=23, minutes=59, seconds=59), link=link)
    click(app, DAY + timedelta(days=3), link=link)  # after the range
    click(app, DAY - timedelta(microseconds=1), link=link)  # before it
    click(app, DAY, link=other)
    click(app, DAY)
    install(app, DAY + timedelta(hours=1), link=link)
    install(app, DAY + timedelta(days=2, hours=1), link=link)
    install(app, DAY + timedelta(hours=1), link=other)
    install(app, DAY + timedelta(hours=1))
    open_(link, DAY + timedelta(days=2))
    open_(other, DAY)
    response = get_report(owner_api, link)
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["link_id"] == str(link.id) and data["timezone"] == "UTC"
    assert [d["date"] for d in data["days"]] == ["2025-06-10", "2025-06-11", "2025-06-12"]
    assert [(d["clicks"], d["installs"], d["deep_link_opens"]) for d in data["days"]] == [
        (7, 1, 0), (1, 0, 0), (0, 1, 1)]
    assert data["totals"] == {"clicks": 8, "installs": 2, "deep_link_opens": 1}


def test_a_quiet_range_is_all_zeros_one_row_per_day(owner_api, link):
    data = get_report(owner_api, link, "2025-01-01", "2025-01-31").json()["data"]
    assert len(data["days"]) == 31
    assert data["days"][0]["date"] == "2025-01-01" and data["days"][-1]["date"] == "2025-01-31"
    assert data["totals"] == {"clicks": 0, "installs": 0, "deep_link_opens": 0}


def test_a_date_time_is_reduced_to_its_utc_day(owner_api, app, link):
    click(app, DAY + timedelta(hours=3), link=link)
    # 23:00 at -02:00 is 01:00 UTC on the 10th; 01:00 at +02:00 is 23:00 UTC on the 10th.
    response = get_report(owner_api, link, "2025-06-09T23:00:00-02:00",
                          "2025-06-11T01:00:00+02:00")
    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["start_date"], data["end_date"]) == ("2025-06-10", "2025-06-10")
    assert data["days"] == [
        {"date": "2025-06-10", "clicks": 1, "installs": 0, "deep_link_opens": 0}]


@pytest.mark.parametrize("query,field", [
    ({"start_date": "2025-06-10"}, "end_date"),
    ({"end_date": "2025-06-10"}, "start_date"),
    ({"start_date": "10/06/2025", "end_date": "2025-06-10"}, "start_date"),
    ({"start_date": "2025-06-10", "end_date": "2025-06-09"}, "end_date"),
    ({"start_date": "2024-01-01", "end_date": "2025-06-09"}, "end_date"),
    ({"start_date": "1999-12-31", "end_date": "2000-01-02"}, "start_date"),
])
def test_bad_dates_are_refused_as_the_analytics_endpoints_do(owner_api, link, query, field):
    response = owner_api.get(f"/api/v1/links/{link.id}/report", query)
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]


def test_the_report_needs_a_login(api, link):
    assert get_report(api, link).status_code == 401


def test_report_assembly_fills_every_day_and_sums_totals():
    built = report.report_assemble(
        link_id=None, start=date(2025, 1, 30), end=date(2025, 2, 2),
        counts={"clicks": {date(2025, 1, 31): 3, date(2025, 2, 2): 1},
                "installs": {date(2025, 2, 2): 1}, "deep_link_opens": {}})
    assert [(d.date.isoformat(), d.clicks, d.installs, d.deep_link_opens)
            for d in built.days] == [("2025-01-30", 0, 0, 0), ("2025-01-31", 3, 0, 0),
                                      ("2025-02-01", 0, 0, 0), ("2025-02-02", 1, 1, 0)]
    assert (built.totals.clicks, built.totals.installs, built.totals.deep_link_opens) == (4, 1, 0)


@pytest.mark.postgres
def test_every_figure_is_read_through_an_index_that_starts_with_the_link(link):
    expected = {"clicks": "click_archive_link_time_idx", "installs": "install_link_time_idx",
                "deep_link_opens": "link_open_time_idx"}
    since = datetime(2025, 6, 1, tzinfo=UTC)
    until = datetime(2025, 7, 1, tzinfo=UTC)
    queries = {**link_rows.count_queries(link_id=link.id, since=since, until=until),
               "deep_link_opens": report.opens_query(link_id=link.id, since=since,
                                                     until=until)}
    with connection.cursor() as cursor:
        # Tables this small are cheapest to scan whole; without that option the plan shows
        # whether the index can serve the query at all, which is what is asked.
        cursor.execute("SET LOCAL enable_seqscan = off")
    for name, rows in queries.items():
        plan = rows.explain()
        assert expected[name] in plan, (name, plan)
        assert "Seq Scan" not in plan, (name, plan)
