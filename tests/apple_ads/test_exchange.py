"""The Apple Ads exchange end to end against a local HTTPS stand-in of Apple's attribution API:
an iOS install with a token gets a claim in its own write; a worker's exchange re-attributes
it to apple_search_ads (trail, webhook, postback, rollup repair), or finishes, retries or gives
up as apple_ads/policy.py says."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from analytics.models import RollupDirtyDay, RollupKind
from apple_ads import policy, services
from apple_ads.enqueue import CLAIMS
from apple_ads.models import Attempt, Claim
from apple_ads.policy import State
from delivery.models import Delivery
from outbox.sweep import work_sweep
from tests.apple_ads.helpers import ATTRIBUTED, TOKEN, apple, ios_install
from tests.delivery.helpers import make_postback, make_webhook
from tests.factories import AppFactory, issue_key
from tracking.models import Install

pytestmark = pytest.mark.django_db


def exchange_due() -> Attempt | None:
    """What a worker's task does with the one claim, once its retry is due."""
    claim = Claim.objects.get()
    Claim.objects.filter(id=claim.id, state=State.PENDING).update(
        next_attempt_at=timezone.now())  # the retry's time has come
    return services.claim_exchange(claim_id=claim.id)


def test_an_apple_ads_install_is_reattributed_with_campaign_ad_group_and_keyword(
        sdk, app, apple_api):
    stand_in = apple_api(apple(200, ATTRIBUTED))
    _webhook, _secret = make_webhook(app, "https://hooks.example.com/in", events=("install",))
    response = ios_install(sdk, app)
    assert response.status_code == 201
    assert response.json()["data"]["isOrganic"] is True  # the waterfall's answer, at once
    install = Install.objects.get()
    assert Delivery.objects.filter(event_type="install").count() == 1

    attempt = exchange_due()

    [request] = stand_in.requests
    assert request.method == "POST" and request.path == "/api/v1/"
    assert request.headers["Content-Type"] == "text/plain"
    assert request.body.decode() == TOKEN
    assert attempt.status_code == 200 and attempt.reading == "attributed"
    install.refresh_from_db()
    assert (install.media_source, install.campaign_id, install.adset, install.ad) == (
        "apple_search_ads", "542370539", "542317095", "87675432")
    assert install.match_type == "apple_ads" and install.is_organic is False
    assert install.confidence == 100
    assert install.attributed_touch_time.isoformat() == "2020-04-08T17:17:00+00:00"
    step = install.decision["steps"][-1]
    assert step["method"] == "apple_ads"
    assert step["outcome"].startswith(
        "Apple Ads: the AdServices API attributed this install to campaign 542370539, "
        "ad group 542317095, keyword or ad 87675432; re-attributed")
    assert install.decision["reattributed_from"]["method"] == "organic"
    assert install.decision["apple_ads"]["answer"] == ATTRIBUTED
    claim = Claim.objects.get()
    assert claim.state == State.ATTRIBUTED and claim.reattributed and claim.token == ""
    assert claim.answer == ATTRIBUTED and claim.completed_at is not None

    hook = Delivery.objects.get(event_type="re-attribution")
    body = json.loads(hook.body)
    assert body["event_type"] == "re-attribution"
    assert body["data"]["media_source"] == "apple_search_ads"
    assert body["data"]["campaign_id"] == "542370539"
    assert body["data"]["adset"] == "542317095" and body["data"]["ad"] == "87675432"
    assert body["data"]["previous_media_source"] is None
    assert body["data"]["previous_match_type"] == "organic"


def test_the_apple_search_ads_postback_hears_of_the_reattribution_and_no_other(
        sdk, app, apple_api):
    apple_api(apple(200, ATTRIBUTED))
    make_postback(app, "https://asa.example.com/pb?c={campaign_id}",
                  media_source="apple_search_ads")
    make_postback(app, "https://other.example.com/pb", media_source="network_a")
    ios_install(sdk, app)
    assert not Delivery.objects.exists()  # organic at first: nothing to post back
    exchange_due()
    [postback] = Delivery.objects.all()
    assert postback.event_type == "re-attribution"
    assert postback.postback.media_source == "apple_search_ads"
    assert json.loads(postback.body)["campaign_id"] == "542370539"


def test_the_install_and_event_days_are_queued_for_a_rollup_rebuild(sdk, app, apple_api):
    apple_api(apple(200, ATTRIBUTED))
    ios_install(sdk, app)
    RollupDirtyDay.objects.all().delete()
    exchange_due()
    day = Install.objects.get().installed_at.date()
    queued = set(RollupDirtyDay.objects.values_list("kind", "day"))
    assert {(RollupKind.INSTALLS, day), (RollupKind.EVENTS, day)} <= queued


def test_not_attributed_changes_nothing_and_finishes_the_claim(sdk, app, apple_api):
    apple_api(apple(200, {"attribution": False}))
    make_webhook(app, "https://hooks.example.com/in", events=("install",))
    ios_install(sdk, app)
    before = Install.objects.values().get()
    exchange_due()
    assert Install.objects.values().get() == before
    claim = Claim.objects.get()
    assert claim.state == State.NOT_ATTRIBUTED and claim.answer == {"attribution": False}
    assert claim.token == "" and not claim.reattributed
    assert not Delivery.objects.filter(event_type="re-attribution").exists()


def test_not_yet_available_is_retried_until_apple_has_the_record(sdk, app, apple_api):
    stand_in = apple_api(apple(404), apple(404), apple(200, ATTRIBUTED))
    ios_install(sdk, app)
    first = exchange_due()
    claim = Claim.objects.get()
    assert first.status_code == 404 and claim.state == State.PENDING
    assert 4 <= (claim.next_attempt_at - first.finished_at).total_seconds() <= 6
    assert services.claim_exchange(claim_id=claim.id) is None  # not due yet: nothing sent
    assert len(stand_in.requests) == 1
    exchange_due()
    exchange_due()
    assert len(stand_in.requests) == 3
    assert list(Attempt.objects.order_by("number").values_list("status_code", flat=True)) == [
        404, 404, 200]
    assert Claim.objects.get().state == State.ATTRIBUTED
    assert Install.objects.get().media_source == "apple_search_ads"


def test_apple_down_is_retried_then_given_up_and_recorded(sdk, app, apple_api):
    stand_in = apple_api(default=apple(500))
    ios_install(sdk, app)
    for _ in range(7):
        exchange_due()
    assert exchange_due() is None  # given up: nothing more is sent
    assert len(stand_in.requests) == 7
    claim = Claim.objects.get()
    assert claim.state == State.FAILED and claim.completed_at is not None
    assert claim.last_error == "Apple answered 500: unavailable."
    assert Attempt.objects.filter(status_code=500, reading="unavailable").count() == 7
    assert Install.objects.get().match_type == "organic"


def test_an_unreachable_apple_is_retried_like_an_outage(sdk, app, apple_api, settings):
    apple_api()
    settings.APPLE_ADS_API_URL = "https://127.0.0.1:9/api/v1/"  # nothing listens there
    ios_install(sdk, app)
    attempt = exchange_due()
    assert attempt.status_code is None and attempt.error_message.startswith("Could not reach")
    assert Claim.objects.get().state == State.PENDING


def test_an_invalid_token_is_final_at_once(sdk, app, apple_api):
    stand_in = apple_api(apple(400))
    ios_install(sdk, app)
    exchange_due()
    assert exchange_due() is None
    assert len(stand_in.requests) == 1
    claim = Claim.objects.get()
    assert claim.state == State.INVALID and claim.token == ""
    assert "400" in claim.last_error


def test_a_repeat_install_makes_no_second_claim(sdk, app, apple_api):
    apple_api(apple(200, ATTRIBUTED))
    assert ios_install(sdk, app).status_code == 201
    assert ios_install(sdk, app, attribution_token="another-token").status_code == 200
    assert Claim.objects.count() == 1
    assert Claim.objects.get().token == TOKEN


@pytest.mark.parametrize("platform", ["android", "web"])
def test_a_token_from_another_platform_is_ignored(owner, platform):
    other = AppFactory(organization=owner.organization, platform=platform,
                       package_name="com.example.other" if platform == "android" else None,
                       domain="shop.example" if platform == "web" else None)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(other))
    assert ios_install(client, other, platform=platform).status_code == 201
    assert not Claim.objects.exists()


def test_an_ios_install_without_a_token_makes_no_claim(sdk, app):
    assert ios_install(sdk, app, attribution_token="").status_code == 201
    assert not Claim.objects.exists()


def test_a_later_device_id_click_keeps_the_install_and_the_trail_says_why(sdk, app, apple_api):
    apple_api(apple(200, {**ATTRIBUTED, "clickDate": "2020-04-08T17:17Z"}))
    ios_install(sdk, app)
    recent = timezone.now() - timedelta(hours=1)
    Install.objects.update(match_type="device_id", media_source="network_a", is_organic=False,
                           campaign_id="c1", confidence=100, attributed_touch_time=recent)
    exchange_due()
    install = Install.objects.get()
    assert install.media_source == "network_a"
    assert "kept its attribution (the device_id click came after the Apple Ads tap)" in \
        install.decision["steps"][-1]["outcome"]
    claim = Claim.objects.get()
    assert claim.state == State.ATTRIBUTED and not claim.reattributed
    assert not Delivery.objects.filter(event_type="re-attribution").exists()


def test_the_sweep_takes_back_a_claim_whose_worker_died_and_resends_lost_ones(
        sdk, app, apple_api):
    apple_api(apple(200, ATTRIBUTED))
    ios_install(sdk, app)
    claim = Claim.objects.get()
    past = timezone.now() - timedelta(minutes=5)
    Claim.objects.update(state=State.SENDING, lease_expires_at=past, attempts_made=1)
    Attempt.objects.create(claim=claim, number=1, started_at=past)
    sent = work_sweep(CLAIMS, now=timezone.now(), grace_seconds=0)
    assert sent == [str(claim.id)]
    # In-process (no broker) the sweep's message ran the exchange already; with a broker, this
    # is what the worker receiving it does.
    services.claim_exchange(claim_id=claim.id)
    claim.refresh_from_db()
    assert claim.state == State.ATTRIBUTED and claim.attempts_made == 2
    assert Attempt.objects.get(number=1).error_message.startswith("Interrupted")


def test_the_sweep_gives_up_a_claim_whose_worker_died_once_its_token_expired(
        sdk, app, apple_api):
    apple_api(apple(200, ATTRIBUTED))
    ios_install(sdk, app)
    day_ago = timezone.now() - timedelta(seconds=policy.TOKEN_TTL_SECONDS + 60)
    Claim.objects.update(state=State.SENDING, received_at=day_ago, attempts_made=3,
                         lease_expires_at=timezone.now() - timedelta(minutes=5))
    assert work_sweep(CLAIMS, now=timezone.now(), grace_seconds=0) == []
    claim = Claim.objects.get()
    assert claim.state == State.FAILED and claim.token == "" and claim.completed_at
    assert claim.last_error.startswith("Given up")
