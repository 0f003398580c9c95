"""The one rule of what counts (analytics/counting.py; docs/metrics.md, "What counts"): blocked and
post-attribution installs and their events' revenue are in no install or revenue figure and are
reported apart, and every place that shows a figure agrees: the API's reports, the console's
overview and revenue pages, the CSV exports (API and console) and the raw-data files, whose
rows are all there, marked.

The installs are made the way an SDK makes them, on an app whose fraud settings put the
click-to-install rule in block mode: a click two seconds before an install is hijacking
(blocked), one an hour before is honest (clean), and an honest click beaten by a hijacker's
later one is credited and flagged. A post-attribution install is made by the service that
records a finding after the fact."""

from __future__ import annotations

import csv
import importlib
import io
import uuid
from datetime import timedelta
from decimal import Decimal

import duckdb
import pytest
from django.apps import apps as django_apps
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from analytics import counting, queries, rollups
from analytics.models import RollupDirtyDay, RollupKind, SourceType
from analytics.rollups.figures import retention_increments
from raw_export.storage import DirectoryStorage
from raw_export.writing import write_run
from tests.analytics.helpers import at, event, install
from tests.console.helpers import console  # noqa: F401 - the fixture
from tests.factories import issue_key
from tests.fraud.helpers import click
from tracking import services as tracking_services
from tracking.models import Event, Install
from tracking.reporting.rollup_rows import Activity

TILE = r'<dt class="label">{label}</dt><dd class="value">{value}</dd>'
USD = "USD"


# --- The rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("status", "counts"), [
    ("clean", True), ("flagged", True), ("blocked", False), ("post_attribution", False),
    (None, True)])
def test_an_install_counts_unless_it_was_blocked_or_taken_back(status, counts):
    assert counting.counted(status) is counts


def test_an_events_status_is_blocked_when_it_was_stored_so_else_its_installs():
    assert counting.event_status(is_blocked=True, install_status="blocked") == "blocked"
    assert counting.event_status(is_blocked=False, install_status="flagged") == "flagged"
    assert counting.event_status(is_blocked=False, install_status="post_attribution") == (
        "post_attribution")
    assert counting.event_status(is_blocked=False, install_status=None) is None


def test_what_does_not_count_is_kept_in_the_rollups_under_source_types_of_its_name():
    assert set(counting.NOT_COUNTED) <= {choice.value for choice in SourceType}


def test_retention_activity_of_an_install_that_does_not_count_is_left_out():
    app_id, day = uuid.uuid4(), timezone.now().date()
    cohort = day - timedelta(days=1)
    activity = [Activity(app_id, uuid.uuid4(), cohort, day, status)
                for status in ("clean", "flagged", "blocked", "post_attribution")]
    assert retention_increments(activity, set()) == {(app_id, day, cohort, 1): 2}


# --- Every figure agrees ----------------------------------------------------------------------

def sdk_client(app) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(app))
    return client


def sdk_install(sdk, app, device: str) -> Install:
    response = sdk.post("/api/v1/installs", {"app_id": str(app.id), "platform": "android",
                                             "sdk_version": "6.0.0", "device_id": device},
                        format="json")
    assert response.status_code == 201, response.content
    return Install.objects.get(id=response.json()["data"]["installId"])


def sdk_events(sdk, app, device: str, *events: tuple[str, str | None]) -> None:
    now = int(timezone.now().timestamp() * 1000)
    body = {"app_id": str(app.id), "device_id": device, "sdk_version": "6.0.0", "events": [
        {"event_name": name, "timestamp": now, "session_id": str(uuid.uuid4()),
         "properties": {} if amount is None else {"amount": amount, "currency": USD}}
        for name, amount in events]}
    response = sdk.post("/api/v1/events", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["data"]["accepted"] == len(events)


def csv_rows(response) -> list[dict]:
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body, newline="")))


def tiles(html: str, labels: dict[str, str]) -> None:
    for label, value in labels.items():
        assert TILE.format(label=label, value=value) in html, label


@pytest.mark.django_db(transaction=True)
def test_the_reports_pages_csv_exports_and_raw_files_agree_on_what_counts(
        owner_api, console, app, tmp_path):  # noqa: F811 - the console fixture
    settings = owner_api.put(f"/api/v1/apps/{app.id}/fraud-settings", {
        "ctit_anomalies_mode": "block", "ctit_floor_seconds": 10,
        "too_many_engagements_mode": "off"}, format="json")
    assert settings.status_code == 200, settings.content
    sdk = sdk_client(app)
    click(app, seconds_ago=3600, source="network_a", device="gaid-clean")
    click(app, seconds_ago=3600, source="network_a", device="gaid-flagged")
    click(app, seconds_ago=2, source="hijacker", device="gaid-flagged")
    click(app, seconds_ago=2, source="hijacker", device="gaid-blocked")
    click(app, seconds_ago=3600, source="network_c", device="gaid-caught")
    made = {device: sdk_install(sdk, app, device)
            for device in ("gaid-clean", "gaid-flagged", "gaid-blocked", "gaid-organic",
                           "gaid-caught")}
    assert {device: row.fraud_status for device, row in made.items()} == {
        "gaid-clean": "clean", "gaid-flagged": "flagged", "gaid-blocked": "blocked",
        "gaid-organic": "clean", "gaid-caught": "clean"}
    rollups.refresh()  # the installs are in the rollups before the events arrive
    sdk_events(sdk, app, "gaid-clean", ("purchase", "12.00"))
    sdk_events(sdk, app, "gaid-flagged", ("purchase", "2.47"))
    sdk_events(sdk, app, "gaid-organic", ("purchase", "5.00"))
    sdk_events(sdk, app, "gaid-blocked", ("open", None), ("purchase", "7.00"))
    sdk_events(sdk, app, "gaid-caught", ("purchase", "3.00"))
    rollups.refresh()  # the events are added to the rollups as arrivals
    # Beat's click-flood check takes network_c's install back: its day is rebuilt.
    assert tracking_services.installs_fraud_relabel(
        install_ids=[made["gaid-caught"].id], status="post_attribution",
        reason={"reason": "click_flood", "value": None, "sub_reason": "network_c"},
        step="taken back: network_c flooded clicks", now=timezone.now()) == 1
    rollups.refresh()

    today = timezone.now().date()
    period = {"app_id": str(app.id), "start_date": str(today - timedelta(days=1)),
              "end_date": str(today + timedelta(days=1))}

    def report(name: str, **extra) -> dict:
        response = owner_api.get(f"/api/v1/analytics/{name}", {**period, **extra})
        assert response.status_code == 200, response.content
        return response.json()["data"]

    # The API: 3 installs count (2 paid, 1 organic) and 19.47 of revenue; apart, 1 blocked
    # install with 7.00 and 1 post-attribution install with 3.00.
    kpis = report("dashboard")["kpis"]
    assert {key: kpis[key] for key in ("total_installs", "paid_installs", "organic_installs",
                                       "blocked_installs", "post_attribution_installs",
                                       "total_revenue")} == {
        "total_installs": 3, "paid_installs": 2, "organic_installs": 1, "blocked_installs": 1,
        "post_attribution_installs": 1, "total_revenue": 19.47}
    sources = report("sources")["sources"]
    assert sum(row["installs"] for row in sources) == 3
    assert sum(row["blocked_installs"] for row in sources) == 1
    assert sum(row["post_attribution_installs"] for row in sources) == 1
    assert sum(Decimal(str(row["revenue"])) for row in sources) == Decimal("19.47")
    campaigns = report("campaigns")["campaigns"]
    assert sum(row["installs"] for row in campaigns) == 2
    assert sum(Decimal(str(row["revenue"])) for row in campaigns) == Decimal("14.47")
    assert report("retention")["summary"]["installs"] == 3
    revenue = report("revenue")
    assert {key: revenue[key] for key in ("total_revenue", "revenue_events", "installs",
                                          "cohort_revenue", "blocked_revenue",
                                          "post_attribution_revenue")} == {
        "total_revenue": 19.47, "revenue_events": 3, "installs": 3, "cohort_revenue": 19.47,
        "blocked_revenue": 7.0, "post_attribution_revenue": 3.0}
    credit = report("attribution")
    assert (credit["attributed_installs"], credit["organic_installs"],
            credit["credited_installs"], credit["credited_revenue"]) == (2, 1, 2, 14.47)

    # The console's pages show the same figures, the ones apart as tiles of their own.
    range_query = {"range": "custom", "start": period["start_date"], "end": period["end_date"]}
    overview = console.get(reverse("console:overview", args=[app.id]), range_query)
    tiles(overview.content.decode(), {
        "Installs": "3", "Paid installs": "2", "Organic installs": "1", "Blocked installs": "1",
        "Post-attribution installs": "1", "Revenue": "19.47 USD"})
    revenue_page = console.get(reverse("console:revenue", args=[app.id]), range_query)
    tiles(revenue_page.content.decode(), {
        "Revenue": "19.47 USD", "Revenue events": "3", "Installs": "3",
        "Revenue of blocked installs": "7.00 USD",
        "Revenue of post-attribution installs": "3.00 USD"})

    # The CSV exports, the API's and the console's alike, list every row, marked.
    exported = {}
    for kind in ("installs", "events", "revenue"):
        from_api = csv_rows(owner_api.get("/api/v1/analytics/export", {**period, "type": kind}))
        from_console = csv_rows(console.get(
            reverse("console:export-download", args=[app.id, kind]), range_query))
        assert from_console == from_api, kind
        exported[kind] = from_api
    installs = {row["device_id"]: row for row in exported["installs"]}
    assert {device: (row["fraud_status"], row["fraud_reasons"], row["counted"])
            for device, row in installs.items()} == {
        "gaid-clean": ("clean", "", "true"),
        "gaid-flagged": ("flagged", "ctit_anomalies", "true"),
        "gaid-blocked": ("blocked", "ctit_anomalies", "false"),
        "gaid-organic": ("clean", "", "true"),
        "gaid-caught": ("post_attribution", "click_flood", "false")}
    counted_installs = [row for row in exported["installs"] if row["counted"] == "true"]
    assert len(counted_installs) == kpis["total_installs"]
    assert sum(row["is_organic"] == "false" for row in counted_installs) == kpis["paid_installs"]

    def total(rows, column, **where) -> Decimal:
        return sum((Decimal(row[column]) for row in rows if row[column]
                    and all(row[key] == value for key, value in where.items())), Decimal(0))

    assert total(exported["revenue"], "amount_in_report_currency") == Decimal("29.47")
    assert total(exported["revenue"], "amount_in_report_currency", counted="true") == (
        Decimal("19.47"))
    assert total(exported["revenue"], "amount_in_report_currency", fraud_status="blocked") == (
        Decimal("7.00"))
    assert total(exported["revenue"], "amount_in_report_currency",
                 fraud_status="post_attribution") == Decimal("3.00")
    blocked_purchase = next(row for row in exported["revenue"] if row["device_id"] ==
                            "gaid-blocked")
    assert (blocked_purchase["source_type"], blocked_purchase["counted"]) == ("blocked", "false")
    assert total(exported["events"], "revenue_amount", counted="true") == Decimal("19.47")
    blocked_events = [(row["event_name"], row["fraud_status"], row["counted"])
                      for row in exported["events"] if row["device_id"] == "gaid-blocked"]
    assert sorted(blocked_events) == [("open", "blocked", "false"),
                                      ("purchase", "blocked", "false")]

    # The raw-data files: the same marks, and the counted rows add up to the same figures.
    write_run(storage=DirectoryStorage(tmp_path), prefix="raw", fmt="parquet",
              topics=["installs", "inapps"], app_ids=[app.id], since=None, run_id="r1")

    def files(topic: str) -> str:
        return f"read_parquet('{tmp_path}/raw/t={topic}/*/*/*.parquet')"

    raw_installs = duckdb.sql(
        f"SELECT advertising_id, fraud_status, counted FROM {files('installs')}").fetchall()
    assert {device: (status, counted) for device, status, counted in raw_installs} == {
        "gaid-clean": ("clean", True), "gaid-flagged": ("flagged", True),
        "gaid-blocked": ("blocked", False), "gaid-organic": ("clean", True),
        "gaid-caught": ("post_attribution", False)}
    assert duckdb.sql(f"SELECT count(*) FROM {files('installs')} WHERE counted").fetchall() == [
        (kpis["total_installs"],)]
    assert duckdb.sql(
        f"SELECT sum(event_revenue_usd) FILTER (WHERE counted), "
        f"sum(event_revenue_usd) FILTER (WHERE fraud_status = 'blocked') "
        f"FROM {files('inapps')}").fetchall() == [(Decimal("19.47"), Decimal("7.00"))]
    raw_blocked = duckdb.sql(
        f"SELECT event_name, is_blocked, fraud_status, fraud_reasons, counted "
        f"FROM {files('inapps')} WHERE advertising_id = 'gaid-blocked' ORDER BY event_name"
    ).fetchall()
    assert [row[:3] + row[4:] for row in raw_blocked] == [
        ("open", True, "blocked", False), ("purchase", True, "blocked", False)]
    assert all('"ctit_anomalies"' in row[3] for row in raw_blocked)


# --- Retention --------------------------------------------------------------------------------

@pytest.mark.django_db
def test_a_cohort_is_the_installs_that_count_and_their_activity_only(owner_api, app):
    cohort_day = timezone.now().date() - timedelta(days=3)
    kept = install(app, at(cohort_day, 9), "dev-kept", source="network_a", campaign="c1")
    caught = install(app, at(cohort_day, 10), "dev-caught", source="network_a", campaign="c1")
    # Stored as tracking stores a blocked install and its events: organic, and marked.
    blocked = install(app, at(cohort_day, 11), "dev-blocked")
    Install.objects.filter(id=blocked.id).update(fraud_status="blocked", fraud_reasons=[
        {"reason": "ctit_anomalies", "value": 2, "sub_reason": ""}])
    next_day = cohort_day + timedelta(days=1)
    for row in (kept, caught, blocked):
        event(app, at(next_day, 12), row.device_id, install_row=row)
    Event.objects.filter(install=blocked).update(is_blocked=True)
    tracking_services.installs_fraud_relabel(
        install_ids=[caught.id], status="post_attribution",
        reason={"reason": "click_flood", "value": None, "sub_reason": "network_a"},
        step="taken back", now=timezone.now())
    rollups.rebuild_app(app_id=app.id)

    response = owner_api.get("/api/v1/analytics/retention", {
        "app_id": str(app.id), "start_date": str(cohort_day), "end_date": str(cohort_day)})
    assert response.status_code == 200
    [cohort] = response.json()["data"]["cohorts"]
    assert (cohort["installs"], cohort["d1_retained"], cohort["d1"]) == (1, 1, 100.0)
    board = queries.dashboard(period=queries.Period(app.id, cohort_day, cohort_day),
                              currency=USD)
    assert board.total_installs == cohort["installs"]


@pytest.mark.django_db
def test_upgrading_queues_the_days_whose_retention_counted_a_blocked_install(app):
    install_day = timezone.now().date() - timedelta(days=3)
    blocked = install(app, at(install_day, 11), "dev-blocked")
    Install.objects.filter(id=blocked.id).update(fraud_status="blocked")
    install(app, at(install_day, 12), "dev-clean")
    RollupDirtyDay.objects.all().delete()

    migration = importlib.import_module(
        "analytics.migrations.0006_retention_leaves_out_what_does_not_count")
    migration.queue_retention_days(django_apps, None)

    queued = RollupDirtyDay.objects.filter(app=app)
    assert sorted(queued.values_list("day", flat=True)) == [
        install_day + timedelta(days=n) for n in (1, 2, 3)]  # the days up to today
    assert set(queued.values_list("kind", "stale_since")) == {(RollupKind.EVENTS, None)}
