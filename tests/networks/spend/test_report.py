"""With the stand-ins of Meta, Google Ads and TikTok configured, pulls fill the cost report with
exactly their spend, and a restated day replaces the old figure there too."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from networks.spend import services
from tests.networks.spend.helpers import week

pytestmark = pytest.mark.django_db


def pull(connection):
    started, _ = services.pull_start(connection=connection, trigger=services.REQUEST)
    services.pull_send(pull_id=started.id)


def report(owner_api, app, today):
    response = owner_api.get("/api/v1/analytics/cost", {
        "app_id": str(app.id), "start_date": (today - timedelta(days=6)).isoformat(),
        "end_date": today.isoformat(), "group_by": "media_source"})
    assert response.status_code == 200, response.content
    return {row["media_source"]: row for row in response.json()["data"]["rows"]}


def test_three_networks_fill_the_cost_report_with_exactly_their_spend(
        owner_api, app, connect, stand_in):
    today = timezone.now().date()
    spends = {"meta": "10.10", "google_ads": "2.50", "tiktok": "7.77"}
    connections = {}
    for network, spend in spends.items():
        stand_in(network).served = week(today, spend=spend)
        connections[network] = connect(network)
        pull(connections[network])
    rows = report(owner_api, app, today)
    for network, source in (("meta", "meta"), ("google_ads", "google"), ("tiktok", "tiktok")):
        assert Decimal(str(rows[source]["spend"])) == Decimal(spends[network]) * 21
        assert rows[source]["impressions"] == 2100 and rows[source]["clicks"] == 105
        assert rows[source]["cost_source"] == "pull"


def test_a_restated_day_replaces_the_reported_figure(owner_api, app, connect, stand_in):
    today = timezone.now().date()
    server = stand_in("meta")
    server.served = week(today, spend="1.00")
    connection = connect("meta")
    pull(connection)
    assert report(owner_api, app, today)["meta"]["spend"] == 21.0
    for row in server.served:
        if row.day == today - timedelta(days=2):
            row.spend = "5.00"
    pull(connection)
    assert report(owner_api, app, today)["meta"]["spend"] == 21.0 + 3 * 4.0
