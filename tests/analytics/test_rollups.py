"""Keeping the rollups current: a refresh adds what committed since the last one, found by
commit order and not by any clock (back-dated rows, a transaction open during a refresh), adds
exactly what a rebuild would count, hands backlogs to day rebuilds, skips a deleted app, lets a
bad day not block the others, and reports how fresh the figures are.

A refresh sees the rows of its own transaction, so on PostgreSQL the tests that refresh more
than once between writes run with real commits (transaction=True), as production does.
"""

import threading
from contextlib import contextmanager
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
from analytics.rollups import arrivals, rebuild
from tests.analytics.helpers import click, event, install
from tests.clock import noon_days_ago
from tracking.changes import Watermark, watermark_now
from tracking.models import Click

pytestmark = pytest.mark.django_db

committed = pytest.mark.django_db(transaction=True)

ROLLUPS = (DailyInstallStat, DailyClickStat, DailyRevenueStat, CohortRevenueStat,
           DailyRetentionStat, InstallTouchpoint, DailyCreditStat, DailyCreditedRevenueStat)


@pytest.fixture
def now():
    # The wall clock: a refresh adds recent installs as they arrive and queues the days of
    # older ones (analytics/rollups/arrivals.py). Rows meant for another day are stamped at
    # that day's noon (tests/clock.py), so they stay on it whenever the suite runs.
    return timezone.now().replace(microsecond=0)


def installs_on(app, day):
    return sum(DailyInstallStat.objects.filter(app=app, day=day).values_list("installs",
                                                                             flat=True))


def total_installs(app):
    return sum(DailyInstallStat.objects.filter(app=app).values_list("installs", flat=True))


def snapshot(app):
    return {model.__name__: sorted(
        tuple(str(v) for k, v in sorted(row.items()) if k != "id")
        for row in model.objects.filter(app=app).values()) for model in ROLLUPS}


@contextmanager
def open_transaction(work):
    """Run `work` in a transaction of another connection, held open until the block ends."""
    done, release = threading.Event(), threading.Event()

    def hold():
        with transaction.atomic():
            work()
            done.set()
            release.wait(10)
        connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert done.wait(10)
    try:
        yield
    finally:
        release.set()
        holder.join()


def hot_click(app, when, media_source, campaign_id, advertising_id):
    """A click as the redirector stores it: in the hot store and the archive, one id."""
    row = click(app, when, media_source, campaign_id, advertising_id)
    Click.objects.create(id=row.id, app=app, clicked_at=when, media_source=media_source,
                         campaign_id=campaign_id, advertising_id=advertising_id)
    return row


@committed
def test_a_refresh_adds_what_committed_since_the_last_one(app, now):
    rollups.refresh()  # the first refresh starts the watermark
    install(app, now - timedelta(seconds=1), "a", source="fb", campaign="c1")
    click(app, now - timedelta(minutes=6), "fb", "c1", "a")
    event(app, now, "a", "purchase", amount="2.00", currency="USD")

    outcome = rollups.refresh()

    assert (outcome.rows_added, outcome.days_queued, outcome.days_pending) == (3, 0, 0)
    assert total_installs(app) == 1
    assert DailyClickStat.objects.get(app=app).clicks == 1
    assert DailyRevenueStat.objects.get(app=app).revenue == Decimal("2")
    assert rollups.refresh().rows_added == 0  # nothing counted twice
    install(app, now, "b")
    assert rollups.refresh().rows_added == 1
    assert total_installs(app) == 2


@committed
def test_rows_stamped_days_in_the_past_reach_the_rollups_on_the_next_refresh(app, now):
    # What counts is when a row committed, not the time written on it: an import, or a web
    # server whose clock lags, must not fall behind a watermark.
    rollups.refresh()
    old = noon_days_ago(4)
    row = install(app, old, "late", source="fb", campaign="c")
    click(app, old - timedelta(hours=1), "fb", "c", "late")
    event(app, old + timedelta(days=1), "late", "purchase", install_row=row, amount="3.00",
          currency="USD")

    rollups.refresh()

    assert installs_on(app, old.date()) == 1
    assert DailyClickStat.objects.get(app=app, day=old.date()).clicks == 1
    revenue = DailyRevenueStat.objects.get(app=app)
    assert (revenue.day, revenue.media_source, revenue.revenue) == (
        old.date() + timedelta(days=1), "fb", Decimal("3"))
    assert DailyRetentionStat.objects.get(app=app).age == 1
    assert not RollupDirtyDay.objects.exists()


@pytest.mark.postgres
@committed
def test_a_transaction_open_during_a_refresh_is_counted_once_when_it_commits(app, now):
    rollups.refresh()
    with open_transaction(lambda: install(app, now, "slow")):
        install(app, now, "quick")  # commits after the slow one started, before it ends
        rollups.refresh()
        assert total_installs(app) == 1
    rollups.refresh()
    assert total_installs(app) == 2
    rollups.refresh()
    assert total_installs(app) == 2


@committed
def test_passes_count_exactly_what_a_rebuild_counts(app, now):
    rollups.refresh()
    early = noon_days_ago(3)
    settled = install(app, early, "dev-S", source="google", campaign="g1")
    organic = install(app, early + timedelta(hours=2), "dev-O")
    rollups.refresh()  # back-dated installs: their days are rebuilt

    hot_click(app, now - timedelta(days=2), "google", "g1", "dev-A")
    hot_click(app, now - timedelta(hours=5), "facebook", "f2", "dev-A")
    chosen = hot_click(app, now - timedelta(hours=1), "facebook", "f1", "dev-A")
    referred = hot_click(app, now - timedelta(hours=2), "tiktok", "t1", None)
    hot_click(app, now - timedelta(hours=3), "facebook", "f1", "someone-else")
    rollups.refresh()
    a = install(app, now - timedelta(minutes=5), "dev-A", source="facebook", campaign="f1",
                click_id=chosen.id, touch=chosen.clicked_at)
    b = install(app, now - timedelta(minutes=4), "dev-B", source="tiktok", campaign="t1",
                match_type="fingerprint", click_id=referred.id, touch=referred.clicked_at)
    install(app, now - timedelta(minutes=3), "dev-C")
    rollups.refresh()

    event(app, now, "dev-A", "purchase", install_row=a, amount="9.99", currency="USD")
    event(app, now, "dev-S", "open", install_row=settled)
    event(app, now, "dev-O", "purchase", install_row=organic, amount="1.25", currency="EUR")
    rollups.refresh()
    event(app, now, "dev-A", "refund", install_row=a, amount="-9.99", currency="USD")
    event(app, now, "dev-S", "open", install_row=settled)  # active today already
    event(app, now, "dev-B", "purchase", install_row=b, amount="0.333333", currency="USD")
    event(app, now, "ghost", "purchase", amount="3.00", currency="USD")
    event(app, early + timedelta(days=1), "dev-S", "open", install_row=settled)
    rollups.refresh()

    passes = snapshot(app)
    assert DailyRetentionStat.objects.get(app=app, cohort_day=early.date(),
                                          day=now.date()).active_installs == 2
    assert set(InstallTouchpoint.objects.filter(install_id=a.id).values_list(
        "media_source", "campaign_id")) == {("google", "g1"), ("facebook", "f2"),
                                            ("facebook", "f1")}
    rollups.rebuild_app(app_id=app.id)
    assert snapshot(app) == passes


@committed
def test_a_backlog_larger_than_a_pass_takes_is_rebuilt_day_by_day(app, now, monkeypatch):
    rollups.refresh()
    monkeypatch.setattr(arrivals, "INCREMENTAL_LIMIT", 2)
    for device in ("a", "b", "c"):
        install(app, now, device)
    outcome = rollups.refresh()
    assert (outcome.rows_added, outcome.days_queued, outcome.days_rebuilt) == (0, 1, 1)
    assert total_installs(app) == 3


@committed
def test_rows_of_an_app_deleted_since_they_arrived_are_left_out(app, now):
    from apps_registry.models import App

    rollups.refresh()
    install(app, now, "a")
    event(app, now, "a", "purchase", amount="1.00", currency="USD")
    # The app goes between a pass reading its rows and writing their figures: its tracking
    # rows are still there (they are deleted in the same transaction as the app, later).
    App.objects.filter(id=app.id)._raw_delete(connection.alias)
    outcome = rollups.refresh()
    assert outcome.rows_added == 2
    for model in ROLLUPS:
        assert not model.objects.exists(), model.__name__


@committed
def test_a_backlog_of_an_app_deleted_meanwhile_is_not_queued(app, now, monkeypatch):
    from apps_registry.models import App

    rollups.refresh()
    monkeypatch.setattr(arrivals, "INCREMENTAL_LIMIT", 0)
    install(app, now, "a")
    App.objects.filter(id=app.id)._raw_delete(connection.alias)
    outcome = rollups.refresh()
    assert (outcome.days_queued, outcome.days_pending) == (0, 0)


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


def test_revenue_of_an_install_without_touchpoints_goes_to_its_own_campaign(app, now):
    day = (now - timedelta(days=2)).date()
    row = install(app, now - timedelta(days=2), "dev", source="fb", campaign="c")
    event(app, now - timedelta(days=2), "dev", "purchase", install_row=row, amount="4.00",
          currency="USD")
    rebuild.rebuild_event_day(app_id=app.id, day=day, seen=watermark_now())
    credited = DailyCreditedRevenueStat.objects.get(app=app)
    assert (credited.media_source, credited.campaign_id) == ("fb", "c")
    assert [getattr(credited, m) for m in rollups.MODEL_FIELDS] == [Decimal("4")] * 4


def test_a_day_that_fails_to_rebuild_stays_queued_and_does_not_block_others(app, now,
                                                                            monkeypatch):
    rollups.refresh()
    bad_day = (now - timedelta(days=3)).date()
    good_day = (now - timedelta(days=2)).date()
    install(app, now - timedelta(days=3), "a")
    install(app, now - timedelta(days=2), "b")
    rollups.queue_app(app_id=app.id, start=bad_day, end=good_day)
    real = rollups.REBUILDERS[RollupKind.INSTALLS]

    def flaky(*, app_id, day, seen):
        if day == bad_day:
            raise RuntimeError("boom")
        real(app_id=app_id, day=day, seen=seen)

    monkeypatch.setitem(rollups.REBUILDERS, RollupKind.INSTALLS, flaky)
    rollups.refresh()
    assert installs_on(app, good_day) == 1
    assert list(RollupDirtyDay.objects.values_list("kind", "day")) == [
        (RollupKind.INSTALLS, bad_day)]


@committed
def test_data_through_reports_how_fresh_the_figures_are(app, now, monkeypatch):
    assert rollups.data_through(app_id=app.id) is None  # never refreshed
    install(app, now, "a")
    rollups.refresh()
    state = RollupState.objects.get()
    assert rollups.data_through(app_id=app.id) == state.data_through
    assert abs(state.data_through - timezone.now()) < timedelta(minutes=1)

    monkeypatch.setattr(arrivals, "INCREMENTAL_LIMIT", 0)  # the next arrival is a backlog
    install(app, now, "b")
    monkeypatch.setattr(rebuild, "next_day", lambda *, skip: None)  # and nobody rebuilds
    rollups.refresh()
    assert rollups.data_through(app_id=app.id) == state.data_through  # complete until then
    monkeypatch.undo()
    rollups.refresh()
    assert rollups.data_through(app_id=app.id) == RollupState.objects.get().data_through
    assert total_installs(app) == 2
    rollups.queue_app(app_id=app.id)
    assert rollups.data_through(app_id=app.id) is None  # being repaired


def test_the_beat_task_refreshes_every_two_seconds(app, settings, now):
    install(app, now, "a")
    tasks.rollups_refresh()
    assert DailyInstallStat.objects.filter(app=app).exists()
    entry = settings.CELERY_BEAT_SCHEDULE["analytics.rollups_refresh"]
    assert entry["task"] == "analytics.rollups_refresh" and entry["schedule"] == 2.0


def test_without_beat_a_request_refreshes_the_rollups_first(owner_api, app, settings, now):
    settings.ANALYTICS_REFRESH_ON_READ = True
    install(app, now, "a", source="fb", campaign="c")
    day = now.date().isoformat()
    response = owner_api.get("/api/v1/analytics/dashboard", {
        "app_id": str(app.id), "start_date": day, "end_date": day})
    assert response.json()["data"]["kpis"]["total_installs"] == 1
    assert response.json()["data"]["data_through"] is not None


def test_a_refresh_that_fails_before_a_read_leaves_the_report_to_what_is_stored(
        owner_api, app, settings, monkeypatch, now):
    settings.ANALYTICS_REFRESH_ON_READ = True

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(rollups, "_advance", broken)
    install(app, now, "a")
    day = now.date().isoformat()
    response = owner_api.get("/api/v1/analytics/dashboard", {
        "app_id": str(app.id), "start_date": day, "end_date": day})
    assert response.status_code == 200
    assert response.json()["data"]["kpis"]["total_installs"] == 0
    assert response.json()["data"]["data_through"] is None


def test_with_beat_a_request_only_reads(owner_api, app, settings, now):
    settings.ANALYTICS_REFRESH_ON_READ = False
    install(app, now, "a")
    day = now.date().isoformat()
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
@committed
def test_only_one_refresh_runs_at_a_time(app, now):
    rollups.refresh()
    with open_transaction(lambda: RollupState.objects.select_for_update().get(id=1)):
        install(app, now, "a")
        assert rollups.refresh().skipped  # skipped, not blocked
    assert rollups.refresh().rows_added == 1


def test_a_watermark_survives_its_json_form():
    mark = watermark_now()
    assert Watermark.from_json(mark.to_json()) == mark
