"""Cost pulls against the four networks' stand-ins: a pull writes exactly what the network
served (pages, string numbers, micros, batches), a restated day replaces the old figure, an
error inside a 200 and a 401 fail in the network's words and a later pull recovers, a 429 is
retried when Retry-After says, and no secret appears in anything stored, logged or answered."""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from analytics.models import PulledCost
from networks.models import CostPull
from networks.spend import services
from networks.spend.policy import State
from tests.networks.spend.helpers import SECRETS, Scripted, Served, week

pytestmark = pytest.mark.django_db

NETWORKS = ("meta", "google_ads", "tiktok", "apple_ads")
SOURCES = {"meta": "meta", "google_ads": "google", "tiktok": "tiktok",
           "apple_ads": "apple_search_ads"}


def run(connection):
    pull, made = services.pull_start(connection=connection, trigger=services.REQUEST)
    assert made
    services.pull_send(pull_id=pull.id)
    pull.refresh_from_db()
    return pull


def stored(app, network):
    return PulledCost.objects.filter(app=app, connection=network)


def finer(network, row: Served) -> tuple:
    """The key a network reports at: Google and Apple stop at the ad group."""
    ad = row.ad_id if network in ("meta", "tiktok") else ""
    return (row.day, row.campaign_id, row.adset_id, ad)


@pytest.mark.parametrize("network", NETWORKS)
def test_a_pull_stores_exactly_what_the_network_served(network, app, connect, stand_in):
    server = stand_in(network)
    today = timezone.now().date()
    server.served = week(today, spend="12.345")
    pull = run(connect(network))
    assert pull.state == State.DONE, pull.last_error
    rows = stored(app, network)
    expected = {finer(network, r): r for r in server.served}
    assert {(r.day, r.campaign_id, r.adset_id, r.ad_id) for r in rows} == set(expected)
    assert sum(r.spend for r in rows) == Decimal("12.345") * len(server.served)
    assert sum(r.impressions for r in rows) == 100 * len(server.served)
    assert sum(r.clicks for r in rows) == 5 * len(server.served)
    assert {r.media_source for r in rows} == {SOURCES[network]}
    assert pull.rows_written == len(server.served)
    assert pull.spend_totals == {"USD": str(Decimal("12.345") * len(server.served))}
    assert (pull.since, pull.until) == (today - timedelta(days=6), today)


def test_meta_pages_are_followed_and_their_urls_never_logged(app, connect, stand_in, caplog):
    server = stand_in("meta")
    server.served = week(timezone.now().date())  # 21 rows: 11 pages of 2
    caplog.set_level(logging.DEBUG)
    run(connect("meta"))
    assert "after=" not in caplog.text and SECRETS[0] not in caplog.text
    assert len(server.seen) == 11
    first = server.seen[0]
    assert first.path == "/v21.0/act_1234567/insights"
    assert first.query["level"] == ["ad"] and first.query["time_increment"] == ["1"]
    assert "spend" in first.query["fields"][0] and "date_start" in first.query["fields"][0]


def test_google_sends_the_developer_token_and_the_manager_account(app, connect, stand_in):
    server = stand_in("google_ads")
    server.served = week(timezone.now().date())
    run(connect("google_ads"))
    token, *streams = server.seen
    assert token.path == "/token"
    assert len(streams) == 7  # one searchStream a day
    assert streams[0].path == "/v22/customers/1234567890/googleAds:searchStream"
    assert streams[0].headers["login-customer-id"] == "9876543210"
    assert streams[0].headers["developer-token"]


def test_a_restated_day_replaces_the_old_figure(app, connect, stand_in):
    server = stand_in("tiktok")
    today = timezone.now().date()
    server.served = week(today)
    connection = connect("tiktok")
    run(connection)
    yesterday = today - timedelta(days=1)
    for row in server.served:
        if row.day == yesterday:
            row.spend = "20.00"
    server.served = [r for r in server.served if not (r.day == yesterday and r.ad_id == "92")]
    pull = run(connection)
    assert pull.state == State.DONE
    day = stored(app, "tiktok").filter(day=yesterday)
    assert day.count() == 2
    assert sum(r.spend for r in day) == Decimal("40.00")
    assert stored(app, "tiktok").count() == 20


def test_an_error_inside_a_200_fails_in_tiktoks_words_and_a_later_pull_recovers(
        app, connect, stand_in):
    server = stand_in("tiktok")
    server.served = week(timezone.now().date())
    server.script = [Scripted(200, {"code": 40002, "message": "advertiser_id: Advertiser does "
                                                              "not exist.", "data": {}})]
    connection = connect("tiktok")
    pull = run(connection)
    assert pull.state == State.FAILED
    assert pull.last_error == ("TikTok refused the request (code 40002): advertiser_id: "
                               "Advertiser does not exist.")
    assert not stored(app, "tiktok").exists()
    assert run(connection).state == State.DONE
    assert stored(app, "tiktok").count() == 21


@pytest.mark.parametrize("network", NETWORKS)
def test_a_401_is_final_in_the_networks_words_and_no_secret_is_kept(
        network, app, connect, stand_in, caplog, owner_api):
    server = stand_in(network)
    server.served = week(timezone.now().date())
    refusal = {"meta": {"error": {"message": "Error validating access token: Session has "
                                             "expired.", "type": "OAuthException",
                                  "code": 190}},
               "google_ads": {"error": "invalid_grant", "error_description": "Bad token."},
               "tiktok": {"code": 40105, "message": "Access token is incorrect."},
               "apple_ads": {"error": "invalid_client"}}[network]
    server.script = [Scripted(401, refusal)]
    caplog.set_level(logging.DEBUG)
    connection = connect(network)
    pull = run(connection)
    assert pull.state == State.FAILED
    assert pull.attempts_made == 1
    assert pull.last_error
    answer = owner_api.get(f"/api/v1/apps/{app.id}/integrations/{network}/cost-pulls")
    assert answer.json()["data"]["pulls"][0]["error"] == pull.last_error
    texts = [pull.last_error, caplog.text, answer.content.decode(),
             owner_api.get(f"/api/v1/apps/{app.id}/integrations").content.decode(),
             *pull.attempts.values_list("error_message", flat=True)]
    for secret in SECRETS:
        for text in texts:
            assert secret not in text
    server.script = []
    assert run(connection).state == State.DONE


def test_a_429_is_tried_again_when_retry_after_says(app, connect, stand_in):
    server = stand_in("meta")
    server.served = week(timezone.now().date())
    server.script = [Scripted(429, {"error": {"message": "busy", "code": 1}},
                              {"Retry-After": "120"})]
    connection = connect("meta")
    pull, _ = services.pull_start(connection=connection, trigger=services.REQUEST)
    before = timezone.now()
    services.pull_send(pull_id=pull.id)
    pull.refresh_from_db()
    assert pull.state == State.PENDING
    assert "429" in pull.last_error
    wait = (pull.next_attempt_at - before).total_seconds()
    assert 115 <= wait <= 125
    CostPull.objects.filter(pk=pull.pk).update(next_attempt_at=timezone.now())
    services.pull_send(pull_id=pull.id)
    pull.refresh_from_db()
    assert pull.state == State.DONE
    assert pull.attempts_made == 2
    assert stored(app, "meta").count() == 21


def test_a_network_down_is_retried_with_backoff(app, connect, stand_in):
    server = stand_in("google_ads")
    server.served = week(timezone.now().date())
    server.script = [Scripted(503, {"error": {"code": 503, "status": "UNAVAILABLE",
                                              "message": "The service is unavailable."}})]
    pull, _ = services.pull_start(connection=connect("google_ads"), trigger=services.REQUEST)
    services.pull_send(pull_id=pull.id)
    pull.refresh_from_db()
    assert pull.state == State.PENDING and pull.next_attempt_at > timezone.now()


def test_the_campaign_filter_keeps_the_apps_campaigns(app, connect, stand_in):
    server = stand_in("apple_ads")
    server.served = week(timezone.now().date())
    run(connect("apple_ads", campaign_name_contains="summer"))
    assert set(stored(app, "apple_ads").values_list("campaign_id", flat=True)) == {"111"}


def test_beat_starts_one_pull_per_enabled_connection(app, connect):
    connect("meta")
    connect("tiktok").__class__.objects.filter(network="tiktok").update(enabled=False)
    assert services.pulls_schedule() == 1
    assert services.pulls_schedule() == 0  # the open pull is not doubled


def test_a_pull_past_its_budget_stops_and_is_retried(app, connect, stand_in, settings):
    server = stand_in("meta")
    server.served = week(timezone.now().date())
    settings.COST_PULL_TIMEOUT_SECONDS = 0
    pull = run(connect("meta"))
    assert pull.state == State.PENDING and "took longer than 0 s" in pull.last_error
    assert not server.seen
