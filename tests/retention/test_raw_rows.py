"""Past raw_retention_days, archived clicks and events go: on PostgreSQL whole day partitions
once every app's limit has passed the day, and the rows of apps with a shorter limit in
batches; on SQLite rows in batches. Installs stay (the attribution record), and so do the
rollups: the dashboard's figures are the same after masking and deleting."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from analytics import rollups
from analytics.models import Rollup
from retention.services import retention_enforce
from tests.analytics.helpers import build_scenario
from tests.factories import AppFactory
from tests.retention.helpers import click_pair, days_ago, event_at, install_at
from tracking import partition_sql, partitions
from tracking.models import Click, ClickArchive, Event, Install

pytestmark = pytest.mark.django_db

IP = "81.2.69.77"


def test_web_visits_past_the_limit_go_and_web_ids_stay(now):
    from web.models import Visit, WebId

    web_app = AppFactory(platform="web", package_name=None, domain="shop.example",
                         raw_retention_days=45)
    WebId.objects.create(app=web_app, web_id="w-1")
    old, young = (Visit.objects.create(
        app=web_app, visit_id=uuid.uuid4(), web_id="w-1", visited_at=days_ago(now, d),
        received_at=days_ago(now, d), url="https://shop.example/", match_type="organic")
        for d in (50, 40))

    outcome = retention_enforce(now=now)

    assert list(Visit.objects.values_list("id", flat=True)) == [young.id]
    assert outcome.deleted["web_visits"] == 1
    assert WebId.objects.filter(app=web_app).count() == 1
    assert not Visit.objects.filter(id=old.id).exists()


def test_raw_rows_past_the_limit_go_and_installs_stay(app, now):
    app.raw_retention_days = 45
    app.save()
    old_click, young_click = (click_pair(app, days_ago(now, d), IP) for d in (50, 40))
    install = install_at(app, days_ago(now, 50), IP, "dev-1")
    old_event, young_event = (event_at(app, days_ago(now, d), "dev-1", install)
                              for d in (50, 40))
    partition_sql.partitions_ensure(now=now)  # PostgreSQL: the old days in their own partitions

    outcome = retention_enforce(now=now)

    assert not ClickArchive.objects.filter(id=old_click).exists()
    assert ClickArchive.objects.filter(id=young_click).exists()
    assert list(Event.objects.filter(app=app).values_list("id", flat=True)) == [young_event.id]
    assert not Event.objects.filter(id=old_event.id).exists()
    assert Install.objects.filter(id=install.id).exists()
    assert Click.objects.filter(id=old_click).exists()  # the hot store is pruned by its window
    assert outcome.complete


def test_an_app_with_a_longer_limit_keeps_its_rows_of_the_same_day(app, now):
    app.raw_retention_days = 45
    app.save()
    patient = AppFactory(organization=app.organization)  # the default, 730 days
    short_lived, kept = click_pair(app, days_ago(now, 50), IP), click_pair(patient,
                                                                            days_ago(now, 50), IP)
    event_at(app, days_ago(now, 50), "dev-1")
    kept_event = event_at(patient, days_ago(now, 50), "dev-2")
    partition_sql.partitions_ensure(now=now)

    outcome = retention_enforce(now=now)

    assert not ClickArchive.objects.filter(id=short_lived).exists()
    assert ClickArchive.objects.filter(id=kept).exists()
    assert list(Event.objects.values_list("id", flat=True)) == [kept_event.id]
    assert outcome.partitions_dropped == []
    assert outcome.deleted == {"click_archive": 1, "events": 1, "web_visits": 0}


@pytest.mark.postgres
def test_days_past_every_apps_limit_are_dropped_whole(app, now):
    other = AppFactory(organization=app.organization, raw_retention_days=60)
    app.raw_retention_days = 45
    app.save()
    old_day = partitions.Period(partitions.day_of(days_ago(now, 70)))
    click_pair(app, days_ago(now, 70), IP)
    click_pair(other, days_ago(now, 70), IP)
    event_at(other, days_ago(now, 70), "dev-2")
    between = click_pair(other, days_ago(now, 50), IP)  # past app's limit, not other's
    partition_sql.partitions_ensure(now=now)
    assert old_day in partition_sql.periods_attached("tracking_clickarchive")

    outcome = retention_enforce(now=now)

    assert partitions.partition_name("tracking_clickarchive", old_day) in \
        outcome.partitions_dropped
    assert partitions.partition_name("tracking_event", old_day) in outcome.partitions_dropped
    for table in ("tracking_clickarchive", "tracking_event"):
        assert old_day not in partition_sql.periods_attached(table)
    assert ClickArchive.objects.filter(id=between).exists()
    assert partitions.Period(partitions.day_of(days_ago(now, 50))) in \
        partition_sql.periods_attached("tracking_clickarchive")
    assert not Event.objects.exists()


def _figures(client, scenario) -> dict:
    """The dashboard's figures and every rollup row of the app, after a refresh."""
    rollups.refresh()
    response = client.get("/api/v1/analytics/dashboard", scenario.range)
    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    stored = {model.__name__: sorted(map(repr, model.objects.filter(app=scenario.app)
                                         .order_by().values_list()))
              for model in Rollup.__subclasses__()}
    return {"kpis": data["kpis"], "timeSeries": data["timeSeries"], "rollups": stored}


def test_the_dashboards_figures_stay_after_masking_and_deleting(owner_api, app, now):
    app.raw_retention_days = 45
    app.save()
    day1 = partitions.day_start(now.date() - timedelta(days=40))  # the scenario's first day
    for hour in (1, 2, 3):  # clicks with addresses among the scenario's
        click_pair(app, day1.replace(hour=hour), IP, source="google")
    scenario = build_scenario(app)
    partition_sql.partitions_ensure(now=now)
    before = _figures(owner_api, scenario)
    assert before["kpis"]["total_clicks"] == 9
    assert before["rollups"]["DailyClickStat"] and before["rollups"]["DailyRevenueStat"]

    masked = retention_enforce(now=now)
    assert masked.masked["click_archive"] == 3
    assert not ClickArchive.objects.filter(app=app).exclude(fingerprint="").filter(
        clicked_at__lt=days_ago(now, 30)).exists()
    assert _figures(owner_api, scenario) == before

    deleted = retention_enforce(now=days_ago(now, -20))  # every raw row is now past 45 days
    assert not ClickArchive.objects.filter(app=app).exists()
    assert not Event.objects.filter(app=app).exists()
    assert deleted.deleted or deleted.partitions_dropped
    assert _figures(owner_api, scenario) == before
