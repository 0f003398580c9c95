"""Keeping the rollups current: what a scan finds, the safety margin, late events, idempotent
rebuilds, a bad day that must not block the others, and freshness reporting."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.utils import timezone

from analytics import rollups, tasks
from analytics.models import (
    CohortRevenueStat,
    DailyClickStat,
    DailyCreditedRevenueStat,
    DailyCreditStat,
    DailyInstallStat,
    DailyRetentionStat,
    DailyRevenueStat,
    InstallTouchpoint,
    RollupDirtyDay,
    RollupKind,
    RollupState,
)
from tests.analytics.conftest import click, event, install

pytestmark = pytest.mark.django_db

ROLLUPS = (DailyInstallStat, DailyClickStat, DailyRevenueStat, CohortRevenueStat,
           DailyRetentionStat, InstallTouchpoint, DailyCreditStat, DailyCreditedRevenueStat)


@pytest.fixture
def now():
    return timezone.now().replace(microsecond=0)


@pytest.fixture(autouse=True)
def one_minute_margin(settings):
    settings.ANALYTICS_ROLLUP_SAFETY_SECONDS = 60


def installs_on(app, day):
    return sum(DailyInstallStat.objects.filter(app=app, day=day).values_list("installs",
                                                                             flat=True))


def total_installs(app):
    return sum(DailyInstallStat.objects.filter(app=app).values_list("installs", flat=True))


def snapshot(app):
    return {model.__name__: sorted(
        tuple(str(v) for k, v in sorted(row.items()) if k != "id")
        for row in model.objects.filter(app=app).values()) for model in ROLLUPS}


def test_a_refresh_rolls_up_what_was_recorded_before_the_safety_margin(app, now):
    # A day is rebuilt whole, so data newer than the cutoff shows up when its day is rebuilt
    # for older data; what the margin guarantees is that nothing older is ever skipped.
    settled = install(app, now - timedelta(days=2), "old", source="fb", campaign="c1")
    install(app, now - timedelta(seconds=10), "fresh")
    click(app, now - timedelta(minutes=6), "fb", "c1", "old")
    event(app, now - timedelta(minutes=4), "old", "purchase", install_row=settled,
          amount="2.00", currency="USD", received_at=now - timedelta(minutes=4))

    outcome = rollups.refresh(now=now)

    assert outcome.days_pending == 0 and outcome.days_rebuilt >= 3
    assert total_installs(app) == 1  # "fresh" is inside the margin: not yet
    assert DailyClickStat.objects.get(app=app).clicks == 1
    assert DailyRevenueStat.objects.get(app=app).revenue == Decimal("2")
    assert RollupState.objects.get().cutoff == now - timedelta(seconds=60)

    rollups.refresh(now=now + timedelta(minutes=2))
    assert total_installs(app) == 2


def test_events_are_found_by_id_and_an_open_transaction_is_waited_for(app, now):
    first = event(app, now - timedelta(hours=3), "d", received_at=now - timedelta(minutes=10))
    slow = event(app, now - timedelta(hours=2), "d", received_at=now - timedelta(seconds=5))
    later = event(app, now - timedelta(hours=1), "d", received_at=now - timedelta(minutes=9))

    rollups.discover(now=now)
    # `slow` may still belong to an open transaction: the scan stops just below it, even
    # though `later` (a higher id) was received long ago.
    assert RollupState.objects.get().events_through_id == slow.id - 1
    assert slow.id > first.id and later.id > slow.id

    rollups.discover(now=now + timedelta(minutes=2))
    assert RollupState.objects.get().events_through_id == later.id


def test_a_late_event_requeues_only_the_day_it_happened(app, now):
    old_day = (now - timedelta(days=30)).date()
    owner_install = install(app, now - timedelta(days=31), "dev", source="fb", campaign="c")
    rollups.rebuild_app(app_id=app.id)
    assert not DailyRevenueStat.objects.filter(app=app).exists()

    event(app, now - timedelta(days=30), "dev", "purchase", install_row=owner_install,
          amount="9.99", currency="USD", received_at=now - timedelta(minutes=2))
    queued = rollups.discover(now=timezone.now() + timedelta(minutes=1))
    assert queued == 1
    assert list(RollupDirtyDay.objects.values_list("kind", "day")) == [
        (RollupKind.EVENTS, old_day)]
    rollups.drain()
    row = DailyRevenueStat.objects.get(app=app)
    assert (row.day, row.media_source, row.campaign_id, row.revenue) == (
        old_day, "fb", "c", Decimal("9.99"))
    cohort = CohortRevenueStat.objects.get(app=app)
    assert cohort.install_day == (now - timedelta(days=31)).date()
    assert DailyRetentionStat.objects.get(app=app).age == 1


def test_rebuilding_twice_changes_nothing(app, scenario):
    before = snapshot(app)
    assert before["InstallTouchpoint"] and before["DailyCreditedRevenueStat"]
    rollups.rebuild_app(app_id=app.id)
    assert snapshot(app) == before


def test_touchpoint_weights_of_each_install_add_up_to_one(app, scenario):
    a = scenario.installs["A"]
    rows = InstallTouchpoint.objects.filter(install_id=a.id)
    assert {(r.media_source, r.campaign_id) for r in rows} == {
        ("facebook", "fb_c1"), ("facebook", "fb_c2"), ("google", "g_c1")}
    for model in rollups.MODEL_FIELDS:
        assert sum(getattr(r, model) for r in rows) == Decimal(1)
    assert not InstallTouchpoint.objects.filter(install_id=scenario.installs["C"].id).exists()


def test_revenue_of_an_install_not_rolled_up_yet_goes_to_its_own_campaign(app, now):
    day = (now - timedelta(days=2)).date()
    row = install(app, now - timedelta(days=2), "dev", source="fb", campaign="c")
    event(app, now - timedelta(days=2), "dev", "purchase", install_row=row, amount="4.00",
          currency="USD")
    rollups.rebuild_event_day(app_id=app.id, day=day)
    credited = DailyCreditedRevenueStat.objects.get(app=app)
    assert (credited.media_source, credited.campaign_id) == ("fb", "c")
    assert [getattr(credited, m) for m in rollups.MODEL_FIELDS] == [Decimal("4")] * 4


def test_a_day_that_fails_to_rebuild_stays_queued_and_does_not_block_others(app, now,
                                                                            monkeypatch):
    bad_day = (now - timedelta(days=3)).date()
    good_day = (now - timedelta(days=2)).date()
    install(app, now - timedelta(days=3), "a")
    install(app, now - timedelta(days=2), "b")
    rollups.queue_app(app_id=app.id, start=bad_day, end=good_day)
    real = rollups.REBUILDERS[RollupKind.INSTALLS]

    def flaky(*, app_id, day):
        if day == bad_day:
            raise RuntimeError("boom")
        real(app_id=app_id, day=day)

    monkeypatch.setitem(rollups.REBUILDERS, RollupKind.INSTALLS, flaky)
    rollups.drain()
    assert installs_on(app, good_day) == 1
    assert list(RollupDirtyDay.objects.values_list("kind", "day")) == [
        (RollupKind.INSTALLS, bad_day)]


def test_data_through_reports_how_fresh_the_rollups_are(app, now):
    assert rollups.data_through(app_id=app.id) is None  # never scanned
    install(app, now - timedelta(minutes=5), "a")
    rollups.refresh(now=now)
    cutoff = now - timedelta(seconds=60)
    assert rollups.data_through(app_id=app.id) == cutoff
    install(app, now + timedelta(minutes=1), "b")
    rollups.discover(now=now + timedelta(minutes=3))
    assert rollups.data_through(app_id=app.id) == cutoff  # queued, not yet rebuilt
    rollups.drain()
    assert rollups.data_through(app_id=app.id) == now + timedelta(minutes=2)
    rollups.queue_app(app_id=app.id)
    assert rollups.data_through(app_id=app.id) is None  # being rebuilt


def test_the_beat_task_refreshes(app, settings):
    install(app, timezone.now() - timedelta(minutes=5), "a")
    tasks.rollups_refresh()
    assert DailyInstallStat.objects.filter(app=app).exists()
    assert "analytics.rollups_refresh" in settings.CELERY_BEAT_SCHEDULE


def test_without_beat_a_request_refreshes_stale_rollups(owner_api, app, settings):
    settings.ANALYTICS_REFRESH_ON_READ = True
    moment = timezone.now() - timedelta(minutes=5)
    install(app, moment, "a", source="fb", campaign="c")
    day = moment.date().isoformat()
    response = owner_api.get("/api/v1/analytics/dashboard", {
        "app_id": str(app.id), "start_date": day, "end_date": day})
    assert response.json()["data"]["kpis"]["total_installs"] == 1


def test_with_beat_a_request_only_reads(owner_api, app, settings):
    settings.ANALYTICS_REFRESH_ON_READ = False
    moment = timezone.now() - timedelta(minutes=5)
    install(app, moment, "a")
    day = moment.date().isoformat()
    response = owner_api.get("/api/v1/analytics/dashboard", {
        "app_id": str(app.id), "start_date": day, "end_date": day})
    assert response.json()["data"]["kpis"]["total_installs"] == 0
    assert response.json()["data"]["data_through"] is None


def test_deleting_the_app_deletes_its_rollups_costs_and_queue(owner_api, app, scenario):
    from analytics.models import CampaignCost

    rollups.queue_app(app_id=app.id)
    response = owner_api.delete(f"/api/v1/apps/{app.id}")
    assert response.status_code == 200
    for model in (*ROLLUPS, CampaignCost, RollupDirtyDay):
        assert not model.objects.exists(), model.__name__


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_only_one_scan_runs_at_a_time(app, now):
    RollupState.objects.create(id=1)
    locked, release = threading.Event(), threading.Event()

    def hold_the_scan():
        with transaction.atomic():
            RollupState.objects.select_for_update().get(id=1)
            locked.set()
            release.wait(10)
        connection.close()

    holder = threading.Thread(target=hold_the_scan)
    holder.start()
    locked.wait(10)
    try:
        install(app, now - timedelta(minutes=5), "a")
        assert rollups.discover(now=now) == 0  # skipped, not blocked
    finally:
        release.set()
        holder.join()
    assert rollups.discover(now=now) == 1
