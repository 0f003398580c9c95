"""GET /api/v1/analytics/fraud and the blocked-installs export: per source and campaign, the
installs by status and reason, post-attribution installs, clicks a click-flood block made
ineligible, events of blocked installs, the CTIT histogram in its fixed buckets; organization
scoping and bad parameters answered in the envelope."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, time, timedelta

import pytest

from fraud.models import BotClicks, SignatureRefusal, SourceFlag
from tests.analytics.helpers import event, install
from tracking.models import ClickArchive, Install

pytestmark = pytest.mark.django_db

URL = "/api/v1/analytics/fraud"
DAY = date(2026, 3, 10)


def at(hour: int, minute: int = 0, second: int = 0, day: date = DAY) -> datetime:
    return datetime.combine(day, time(hour, minute, second), tzinfo=UTC)


def marked(row: Install, status: str, *reasons: tuple) -> Install:
    Install.objects.filter(id=row.id).update(fraud_status=status, fraud_reasons=[
        {"reason": r, "value": v, "sub_reason": s} for r, v, s in reasons])
    return row


@pytest.fixture
def scene(app):
    """network_a/a1: installs 5 s (blocked, ctit_anomalies: stored organic), 30 s, 5 min,
    30 min (clean), 3 h (flagged, anonymous_traffic) after their click; network_a/a2: one
    clean, 2 days after.
    flooder/f1: two post-attribution installs (2 and 5 days) and a block flag at 12:00 with
    three clicks after it and one before. An organic install. A blocked install's two events.
    Bot clicks of network_a: 7 kept out (block), 2 recorded (flag)."""
    base = at(18)
    ctits = {"a1": [5, 30, 300, 1800, 3 * 3600], "a2": [2 * 86400]}
    made = {}
    for campaign, seconds in ctits.items():
        for n, ctit in enumerate(seconds):
            made[(campaign, ctit)] = install(app, base, f"{campaign}-{n}", source="network_a",
                                             campaign=campaign,
                                             touch=base - timedelta(seconds=ctit))
    blocked = marked(made[("a1", 5)], "blocked", ("ctit_anomalies", 5, ""))
    # As the fraud gate stores it: organic, the refused claim in the trail.
    Install.objects.filter(id=blocked.id).update(
        media_source=None, campaign_id=None, is_organic=True, match_type="organic",
        attributed_touch_time=None, decision={"fraud": {"status": "blocked", "refused": {
            "media_source": "network_a", "campaign_id": "a1",
            "clicked_at": (base - timedelta(seconds=5)).isoformat()}}})
    marked(made[("a1", 3 * 3600)], "flagged", ("anonymous_traffic", None, "listed_network"))
    for n, ctit in enumerate([2 * 86400, 5 * 86400]):
        marked(install(app, base, f"f-{n}", source="flooder", campaign="f1",
                       touch=base - timedelta(seconds=ctit)), "post_attribution",
               ("click_flood", 0.02, "post_attribution"))
    install(app, base, "organic-1")
    event(app, at(19), blocked.device_id, "purchase", install_row=blocked, amount="9.99",
          currency="USD")
    Event = type(blocked).events.rel.related_model
    Event.objects.filter(install=blocked).update(is_blocked=True)
    event(app, at(20), blocked.device_id, "open", install_row=blocked)
    Event.objects.filter(install=blocked).update(is_blocked=True)
    SourceFlag.objects.create(app=app, media_source="flooder", day=DAY, mode="block",
                              detected_at=at(12), stats={"installs": 2})
    for minute in (0, 1, 2):
        ClickArchive.objects.create(app=app, media_source="flooder", campaign_id="f1",
                                    clicked_at=at(13, minute))
    ClickArchive.objects.create(app=app, media_source="flooder", campaign_id="f1",
                                clicked_at=at(11))
    ClickArchive.objects.create(app=app, media_source="flooder", campaign_id="f1",
                                clicked_at=at(1, day=DAY + timedelta(days=1)))
    BotClicks.objects.create(app=app, day=DAY, media_source="network_a", mode="block",
                             clicks=7)
    BotClicks.objects.create(app=app, day=DAY, media_source="network_a", mode="flag", clicks=2)
    SignatureRefusal.objects.create(app=app, day=DAY, sub_reason="missing", refusals=4)
    SignatureRefusal.objects.create(app=app, day=DAY, sub_reason="wrong", refusals=1)
    return {"app_id": str(app.id), "start_date": DAY.isoformat(),
            "end_date": (DAY + timedelta(days=1)).isoformat()}


def histogram(*counts):
    labels = [("0-10s", 0, 10), ("10-60s", 10, 60), ("1-10min", 60, 600),
              ("10-60min", 600, 3600), ("1-24h", 3600, 86400), ("1-7d", 86400, 604800)]
    return [{"bucket": b, "from_seconds": f, "to_seconds": t, "installs": n}
            for (b, f, t), n in zip(labels, counts, strict=True)]


def test_the_report_counts_each_source_by_status_reason_and_ctit(owner_api, scene):
    response = owner_api.get(URL, scene)
    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert data["app_id"] == scene["app_id"] and data["timezone"] == "UTC"
    by_source = {row["media_source"]: row for row in data["sources"]}
    assert by_source["network_a"] == {
        "media_source": "network_a", "installs": 6, "clean_installs": 4,
        "flagged_installs": 1, "blocked_installs": 1, "post_attribution_installs": 0,
        "blocked_clicks": 7, "blocked_events": 2,
        "clicks_by_reason": [{"reason": "bots", "mode": "block", "clicks": 7},
                             {"reason": "bots", "mode": "flag", "clicks": 2}],
        "by_reason": [{"reason": "ctit_anomalies", "status": "blocked", "installs": 1},
                      {"reason": "anonymous_traffic", "status": "flagged", "installs": 1}],
        "ctit_histogram": histogram(1, 1, 1, 1, 1, 1)}
    assert by_source["flooder"]["post_attribution_installs"] == 2
    assert by_source["flooder"]["blocked_clicks"] == 3  # after 12:00, to the end of the day
    assert by_source["flooder"]["ctit_histogram"] == histogram(0, 0, 0, 0, 0, 2)
    assert by_source["flooder"]["by_reason"] == [
        {"reason": "click_flood", "status": "post_attribution", "installs": 2}]
    assert by_source[None]["installs"] == 1  # organic: no click, no bucket
    assert by_source[None]["ctit_histogram"] == histogram(0, 0, 0, 0, 0, 0)


def test_campaigns_totals_refusals_and_flags(owner_api, scene):
    data = owner_api.get(URL, scene).json()["data"]
    campaigns = {(r["media_source"], r["campaign_id"]): r for r in data["campaigns"]}
    assert campaigns[("network_a", "a1")]["installs"] == 5
    assert campaigns[("network_a", "a2")]["ctit_histogram"] == histogram(0, 0, 0, 0, 0, 1)
    totals = data["totals"]
    assert (totals["installs"], totals["blocked_installs"], totals["flagged_installs"],
            totals["post_attribution_installs"], totals["blocked_clicks"],
            totals["blocked_events"]) == (9, 1, 1, 2, 10, 2)
    assert totals["clicks_by_reason"] == [
        {"reason": "bots", "mode": "block", "clicks": 7},
        {"reason": "bots", "mode": "flag", "clicks": 2},
        {"reason": "click_flood", "mode": "block", "clicks": 3}]
    assert [b["installs"] for b in totals["ctit_histogram"]] == [1, 1, 1, 1, 1, 3]
    assert data["refused_requests"] == {"total": 5, "by_sub_reason": {"missing": 4,
                                                                      "wrong": 1}}
    [flag] = data["click_flood_flags"]
    assert (flag["media_source"], flag["day"], flag["mode"]) == ("flooder", "2026-03-10",
                                                                 "block")


def test_a_range_without_fraud_is_all_zeros(owner_api, app):
    data = owner_api.get(URL, {"app_id": str(app.id), "start_date": "2026-01-01",
                               "end_date": "2026-01-02"}).json()["data"]
    assert data["sources"] == [] and data["campaigns"] == [] and data["click_flood_flags"] == []
    assert data["totals"]["installs"] == 0
    assert data["refused_requests"] == {"total": 0, "by_sub_reason": {}}


def test_another_organizations_app_is_not_found(outsider_api, scene):
    response = outsider_api.get(URL, scene)
    assert response.status_code == 404
    assert response.json()["success"] is False


def test_without_a_token_it_is_refused(api, scene):
    assert api.get(URL, scene).status_code == 401


@pytest.mark.parametrize(("params", "field"), [
    ({"start_date": "2026-03-10", "end_date": "2026-03-11"}, "app_id"),
    ({"app_id": "nope", "start_date": "2026-03-10", "end_date": "2026-03-11"}, "app_id"),
    ({"app_id": "APP", "start_date": "10/03/2026", "end_date": "2026-03-11"}, "start_date"),
    ({"app_id": "APP", "start_date": "2026-03-12", "end_date": "2026-03-11"}, "end_date"),
])
def test_bad_parameters_are_named_in_the_envelope(owner_api, app, params, field):
    query = {name: str(app.id) if value == "APP" else value for name, value in params.items()}
    response = owner_api.get(URL, query)
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False
    assert field in str(body["error"])


def test_the_blocked_installs_export_lists_refused_and_taken_back_installs(owner_api, scene):
    response = owner_api.get("/api/v1/analytics/export", {**scene, "type": "blocked_installs"})
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(
        '-blocked_installs-2026-03-10-to-2026-03-11.csv"')
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(),
                                       newline="")))
    assert rows[0] == ["install_id", "installed_at", "device_id", "platform", "fraud_status",
                       "media_source", "campaign_id", "match_type", "attributed_touch_time",
                       "refused_click_time", "reasons", "first_reason", "first_reason_value",
                       "ip"]
    assert sorted((r[4], r[5], r[10], r[11], r[12]) for r in rows[1:]) == [
        ("blocked", "network_a", "ctit_anomalies", "ctit_anomalies", "5"),
        ("post_attribution", "flooder", "click_flood", "click_flood", "0.02"),
        ("post_attribution", "flooder", "click_flood", "click_flood", "0.02"),
    ]
    assert rows[1][1].endswith("T18:00:00.000Z")
    blocked = next(r for r in rows[1:] if r[4] == "blocked")
    assert (blocked[6], blocked[7], blocked[9]) == ("a1", "organic", "2026-03-10T17:59:55+00:00")


def test_blocked_installs_and_their_revenue_are_counted_apart_elsewhere(owner_api, scene):
    from analytics import rollups

    rollups.refresh()
    base = "/api/v1/analytics"
    kpis = owner_api.get(f"{base}/dashboard", scene).json()["data"]["kpis"]
    assert kpis["blocked_installs"] == 1 and kpis["post_attribution_installs"] == 2
    assert kpis["paid_installs"] == 5 and kpis["organic_installs"] == 1
    assert kpis["total_installs"] == 6
    assert kpis["total_revenue"] == 0.0  # the blocked install's purchase is left out
    sources = {r["media_source"]: r for r in owner_api.get(f"{base}/sources", scene)
               .json()["data"]["sources"]}
    assert sources["network_a"]["installs"] == 5
    assert sources["network_a"]["blocked_installs"] == 1
    assert sources["flooder"]["post_attribution_installs"] == 2
    assert sources["flooder"]["installs"] == 0
    revenue = owner_api.get(f"{base}/revenue", scene).json()["data"]
    assert revenue["total_revenue"] == 0.0 and revenue["revenue_events"] == 0
