"""Cohort retention: Dn is the share of an install day's cohort with any event on calendar day
n after the install day, and null until that day is over."""

from datetime import timedelta

import pytest
from django.utils import timezone

from analytics import rollups
from tests.analytics.helpers import at, event, install

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohorts(app):
    """T is today. Cohort T-40: U (event on day 30), V (event on day 1). Cohort T-10: P (days
    1 and 7), Q (two events on day 1, one on day 2), R (only on its install day). Cohort T-1: S
    (an event today: day 1 is not over). T-9 has no installs."""
    today = timezone.now().date()
    old, mid, young = (today - timedelta(days=n) for n in (40, 10, 1))
    u = install(app, at(old, 8), "U")
    v = install(app, at(old, 9), "V")
    event(app, at(old + timedelta(days=30), 3), "U", install_row=u)
    event(app, at(old + timedelta(days=1), 23, 59), "V", install_row=v)
    p = install(app, at(mid, 23, 30), "P", source="facebook", campaign="c")
    q = install(app, at(mid, 1), "Q")
    r = install(app, at(mid, 2), "R")
    event(app, at(mid + timedelta(days=1), 0, 10), "P", install_row=p)
    event(app, at(mid + timedelta(days=7), 12), "P", install_row=p)
    event(app, at(mid + timedelta(days=1), 5), "Q", install_row=q)
    event(app, at(mid + timedelta(days=1), 6), "Q", install_row=q)
    event(app, at(mid + timedelta(days=2), 6), "Q", install_row=q)
    event(app, at(mid, 4), "R", install_row=r)
    s = install(app, at(young, 12), "S")
    event(app, at(today, 0, 0) + timedelta(seconds=1), "S", install_row=s)
    event(app, at(mid + timedelta(days=1), 7), "stranger")  # linked to no install
    rollups.rebuild_app(app_id=app.id)
    return today, old, mid, young


def test_cohorts_with_mature_and_immature_days(owner_api, app, cohorts):
    today, old, mid, young = cohorts
    response = owner_api.get("/api/v1/analytics/retention", {
        "app_id": str(app.id), "start_date": old.isoformat(), "end_date": today.isoformat()})
    assert response.status_code == 200
    data = response.json()["data"]
    by_day = {c["date"]: c for c in data["cohorts"]}
    assert len(by_day) == 41  # every day of the range, empty ones included
    assert by_day[old.isoformat()] == {
        "date": old.isoformat(), "installs": 2, "d1": 50.0, "d7": 0.0, "d30": 50.0,
        "d1_retained": 1, "d7_retained": 0, "d30_retained": 1}
    assert by_day[mid.isoformat()] == {
        "date": mid.isoformat(), "installs": 3, "d1": 66.67, "d7": 33.33, "d30": None,
        "d1_retained": 2, "d7_retained": 1, "d30_retained": None}
    assert by_day[young.isoformat()] == {
        "date": young.isoformat(), "installs": 1, "d1": None, "d7": None, "d30": None,
        "d1_retained": None, "d7_retained": None, "d30_retained": None}
    empty = (mid + timedelta(days=1)).isoformat()
    assert by_day[empty] == {"date": empty, "installs": 0, "d1": None, "d7": None,
                             "d30": None, "d1_retained": 0, "d7_retained": 0,
                             "d30_retained": None}
    assert by_day[today.isoformat()]["d1"] is None
    # Pooled over the cohorts whose day n is over, from sums: D1 (1 + 2) / (2 + 3);
    # D7 (0 + 1) / (2 + 3); D30 only the oldest cohort, 1 / 2.
    assert data["summary"] == {"installs": 6, "d1": 60.0, "d7": 20.0, "d30": 50.0}


def test_a_range_of_only_immature_cohorts_has_null_rates(owner_api, app, cohorts):
    today, _old, _mid, young = cohorts
    response = owner_api.get("/api/v1/analytics/retention", {
        "app_id": str(app.id), "start_date": young.isoformat(), "end_date": today.isoformat()})
    data = response.json()["data"]
    assert data["summary"] == {"installs": 1, "d1": None, "d7": None, "d30": None}
