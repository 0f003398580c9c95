"""Google Ads' pure rules, no database: the answer's reading and the retry schedule, the request
Google's specification asks for, the gclid in a Play referrer, the waterfall pairs with
Google's click, and where Google's claim stands against each other attribution."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from networks.google import policy, protocol
from networks.google.policy import CrossNetwork, Outcome, Reading, State, Step
from networks.google.referrer import google_click, platform_referrers
from tests.networks.google.helpers import AD_EVENT, ATTRIBUTED, NOT_ATTRIBUTED
from tracking.attribution import attribute
from tracking.reattribution import google_ads_replaces, google_ads_step
from tracking.referrer import parse_install_referrer
from tracking.trail_words import trail_in_words
from tracking.waterfall_inputs import ClickCandidate, InstallSignals, PlatformReferrer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
ANDROID = InstallSignals(platform="android", device_id="gaid-1", ip="81.2.69.7",
                         os_family="Android", os_version="14", device_model="SM-S918B",
                         language="en-US")


def ok(body) -> Outcome:
    return Outcome(status_code=200, body=json.dumps(body))


# --- Reading Google's answer ------------------------------------------------------------------

def test_an_attributed_answer_is_read_with_campaign_ad_group_network_and_time():
    verdict = policy.judge(ok(ATTRIBUTED))
    assert verdict.reading == Reading.ATTRIBUTED
    event = verdict.ad_event
    assert (event.ad_event_id, event.campaign_id, event.campaign_name, event.ad_group_id,
            event.network_type) == (AD_EVENT["ad_event_id"], "123456789", "My App Campaign",
                                    "987654321", "Search")
    assert event.touch_time == datetime.fromtimestamp(1432681913.123456, tz=UTC)


def test_a_not_attributed_answer_ends_the_claim():
    verdict = policy.judge(ok(NOT_ATTRIBUTED))
    assert verdict.reading == Reading.NOT_ATTRIBUTED
    assert policy.decide(verdict=verdict, attempt_number=1, jitter=0.5) == policy.Decision(
        State.NOT_ATTRIBUTED)


@pytest.mark.parametrize("body", ["not json", "[]", '{"attributed": "yes"}',
                                  '{"attributed": true, "ad_events": []}',
                                  '{"attributed": true, "ad_events": [{"campaign_id": 1}]}'])
def test_an_answer_we_cannot_read_is_retried(body):
    verdict = policy.judge(Outcome(status_code=200, body=body))
    assert verdict.reading == Reading.UNAVAILABLE
    assert policy.decide(verdict=verdict, attempt_number=1, jitter=0.5).state == State.PENDING


@pytest.mark.parametrize("status, reading", [
    (500, Reading.UNAVAILABLE), (503, Reading.UNAVAILABLE), (429, Reading.UNAVAILABLE),
    (400, Reading.REJECTED), (401, Reading.REJECTED), (403, Reading.REJECTED),
    (404, Reading.REJECTED)])
def test_statuses_are_read_as_the_specification_means_them(status, reading):
    assert policy.judge(Outcome(status_code=status, body="")).reading == reading


def test_no_answer_is_unavailable():
    assert policy.judge(Outcome(error="No answer within 10 s.")).reading == Reading.UNAVAILABLE


def test_an_unavailable_google_is_retried_on_the_schedule_then_given_up():
    verdict = policy.Verdict(Reading.UNAVAILABLE, "down")
    delays = [policy.decide(verdict=verdict, attempt_number=n, jitter=0.5).retry_in
              for n in range(1, len(policy.UNAVAILABLE_DELAYS) + 1)]
    assert delays == [float(d) for d in policy.UNAVAILABLE_DELAYS]
    last = policy.decide(verdict=verdict, attempt_number=len(policy.UNAVAILABLE_DELAYS) + 1,
                         jitter=0.5)
    assert last == policy.Decision(State.FAILED)


def test_a_claimed_install_moves_on_to_the_cross_network_answer_at_once():
    decision = policy.decide(verdict=policy.judge(ok(ATTRIBUTED)), attempt_number=1,
                             jitter=0.5)
    assert decision == policy.Decision(State.PENDING, 0.0)


def test_the_cross_network_answer_ends_attributed_whether_or_not_google_took_it():
    taken = policy.judge(Outcome(status_code=200, body="{}"), step=Step.CROSS_NETWORK)
    refused = policy.judge(Outcome(status_code=400, body=""), step=Step.CROSS_NETWORK)
    down = policy.judge(Outcome(status_code=502, body=""), step=Step.CROSS_NETWORK)
    assert policy.decide_cross_network(verdict=taken, attempt_number=1, jitter=0.5) == (
        policy.Decision(State.ATTRIBUTED), CrossNetwork.SENT)
    assert policy.decide_cross_network(verdict=refused, attempt_number=1, jitter=0.5) == (
        policy.Decision(State.ATTRIBUTED), CrossNetwork.FAILED)
    retry, ended = policy.decide_cross_network(verdict=down, attempt_number=1, jitter=0.5)
    assert retry.state == State.PENDING and ended is None
    final, ended = policy.decide_cross_network(verdict=down, attempt_number=7, jitter=0.5)
    assert final == policy.Decision(State.ATTRIBUTED) and ended == CrossNetwork.FAILED


def test_a_lost_worker_gives_up_only_past_both_steps_tries():
    assert not policy.exhausted(attempts_made=policy.MAX_ATTEMPTS - 1)
    assert policy.exhausted(attempts_made=policy.MAX_ATTEMPTS)


# --- The request ------------------------------------------------------------------------------

DEVICE = protocol.Device(platform="ios", rdid="6D92078A-8246-4BA4-AE5B-76104861E7DC",
                         app_version="3.1.0", os_version="17.4", sdk_version="3.1.0",
                         ip="203.0.113.9", user_agent="", eea=True, ad_user_data=True,
                         ad_personalization=False)


def params(request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}


def test_a_first_open_carries_every_required_field_and_header():
    request = protocol.conversion(origin="https://www.googleadservices.com", dev_token="t+k",
                                  link_id="L1", device=DEVICE, event_type="first_open", at=NOW)
    assert request.url.startswith("https://www.googleadservices.com/pagead/conversion/app/1.0?")
    assert params(request) == {
        "dev_token": "t+k", "link_id": "L1", "app_event_type": "first_open",
        "rdid": DEVICE.rdid, "id_type": "idfa", "lat": "0", "app_version": "3.1.0",
        "os_version": "17.4", "sdk_version": "3.1.0", "timestamp": f"{NOW.timestamp():.6f}",
        "eea": "1", "ad_user_data": "1", "ad_personalization": "0"}
    assert request.headers["X-Forwarded-For"] == "203.0.113.9"
    assert request.headers["User-Agent"] == "attribution-service 1.0 (iOS 17.4)"
    assert "t%2Bk" not in protocol.masked(request.url, "t+k")


def test_a_device_without_an_advertising_id_is_limit_ad_tracking_with_its_gclid():
    device = protocol.Device(platform="android", rdid=None, app_version="", os_version="14",
                             sdk_version="2.0", ip=None, user_agent="UA", gclid="Cj0K")
    query = params(protocol.conversion(origin="https://g", dev_token="t", link_id="L",
                                       device=device, event_type="first_open", at=NOW))
    assert query["lat"] == "1" and "rdid" not in query
    assert query["market_referrer_gclid"] == "Cj0K"
    assert "eea" not in query  # no consent was ever sent


def test_a_non_google_event_name_goes_as_a_custom_event_and_a_purchase_with_its_value():
    custom = params(protocol.conversion(origin="https://g", dev_token="t", link_id="L",
                                        device=DEVICE, event_type="level_achieved", at=NOW))
    assert (custom["app_event_type"], custom["app_event_name"]) == ("custom", "level_achieved")
    purchase = params(protocol.conversion(origin="https://g", dev_token="t", link_id="L",
                                          device=DEVICE, event_type="in_app_purchase", at=NOW,
                                          value="4.99", currency="EUR"))
    assert (purchase["app_event_type"], purchase["value"], purchase["currency_code"]) == (
        "in_app_purchase", "4.99", "EUR")


def test_the_cross_network_answer_is_the_same_request_on_its_path_with_the_verdict():
    request = protocol.cross_network(origin="https://g", dev_token="t", link_id="L",
                                     device=DEVICE, at=NOW, ad_event_id="AE1", credited=False)
    assert urlsplit(request.url).path == "/pagead/conversion/app/1.0/cross_network"
    assert (params(request)["ad_event_id"], params(request)["attributed"]) == ("AE1", "0")


# --- Google's click in the Play referrer ------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ("gclid=Cj0KCQ&utm_source=google", ("Cj0KCQ", None)),
    ("gclid%3DCj0KCQ%26utm_source%3Dgoogle", ("Cj0KCQ", None)),
    ("gbraid=0AAAAA&utm_source=google", (None, "0AAAAA")),
    ("gclid=Cj0KCQ&gbraid=0AAAAA", ("Cj0KCQ", None)),
])
def test_a_play_referrer_carrying_googles_click_is_read(raw, expected):
    click = google_click(raw)
    assert (click.gclid, click.gbraid) == expected


@pytest.mark.parametrize("raw", [None, "", "utm_source=google-play&utm_medium=organic",
                                 "gclid=", "gclid=" + "x" * 600, "wbraid=abc"])
def test_a_referrer_without_googles_click_is_not_googles(raw):
    assert google_click(raw) is None


# --- Waterfall pairs with Google's click -------------------------------------------------------

def click(minutes_ago=30, **overrides) -> ClickCandidate:
    values = dict(id=uuid.uuid4(), clicked_at=NOW - timedelta(minutes=minutes_ago),
                  media_source="network_a", campaign_id="c1", ip="81.2.69.7",
                  fingerprint=str(uuid.uuid4()), os_family="Android", os_version="14",
                  device_model="SM-S918B", accept_language="en-US")
    values.update(overrides)
    return ClickCandidate(**values)


def run(raw_referrer: str, *, meta: tuple[PlatformReferrer, ...] = (), **kwargs):
    """As the install service calls the waterfall: Google's click is a platform referrer
    after Meta's, and the Play referrer's own source no longer counts when it carries it."""
    referrer = parse_install_referrer(raw_referrer)
    google = platform_referrers(raw_referrer,
                                campaign_id=referrer.campaign_id if referrer else None)
    if google and referrer is not None and referrer.click_id is None:
        referrer = None
    defaults = dict(installed_at=NOW, signals=ANDROID, referrer=referrer, referrer_click=None,
                    device_candidates=[], fingerprint_candidates=[],
                    platform_referrers=(*meta, *google))
    defaults.update(kwargs)
    return attribute(**defaults)


def meta_click(touch_time=None) -> PlatformReferrer:
    return PlatformReferrer(media_source="meta", origin="play_referrer", click=True,
                            touch_time=touch_time, campaign_id="654321")


def test_our_own_click_id_beats_googles_click_in_the_same_referrer():
    ours = click()
    verdict = run(f"click_id={ours.id}&gclid=Cj0K", referrer_click=ours)
    assert verdict.click == ours and verdict.media_source == "network_a"


def test_metas_referrer_beats_googles_click():
    assert run("gclid=Cj0K", meta=(meta_click(),)).media_source == "meta"
    timed = run("gclid=Cj0K", meta=(meta_click(NOW - timedelta(hours=2)),))
    assert (timed.media_source, timed.campaign_id) == ("meta", "654321")


def test_googles_click_beats_a_device_id_click():
    device = click(minutes_ago=5, advertising_id="gaid-1")
    verdict = run("gclid=Cj0K&utm_source=google&utm_campaign=spring",
                  device_candidates=[device])
    assert (verdict.match_type, verdict.media_source, verdict.campaign_id) == (
        "install_referrer", "google", "spring")
    assert verdict.platform_metadata["campaign"] == {"gclid": "Cj0K"}
    steps = [s["outcome"] for s in verdict.trail["steps"]]
    assert ("Google Ads install referrer (its click id in the Play referrer): click-through, "
            "matched") in steps
    assert verdict.trail["candidates"][0]["lost_because"] == (
        "Google Ads install referrer named the click")


def test_googles_click_beats_a_fingerprint_click():
    verdict = run("gbraid=0AAA", fingerprint_candidates=[click(minutes_ago=2)])
    assert verdict.media_source == "google"
    assert verdict.platform_metadata["campaign"] == {"gbraid": "0AAA"}


def test_googles_click_beats_the_named_source_of_its_own_referrer():
    verdict = run("gclid=Cj0K&utm_source=newsletter")
    assert verdict.media_source == "google"


def test_without_googles_click_the_waterfall_is_unchanged():
    verdict = run("utm_source=newsletter&utm_campaign=nov")
    assert (verdict.media_source, verdict.campaign_id) == ("newsletter", "nov")
    assert run("", device_candidates=[click(advertising_id="gaid-1")]).match_type == "device_id"


# --- Google's claim against what the waterfall decided ----------------------------------------

TOUCH = NOW - timedelta(hours=1)


@pytest.mark.parametrize("match_type, media_source, click_id, touch, google_touch, replaces", [
    ("organic", None, None, None, None, True),
    ("fingerprint", "network_a", uuid.uuid4(), TOUCH, None, True),
    ("install_referrer", "network_a", uuid.uuid4(), TOUCH, NOW, False),  # our own click id
    ("install_referrer", "meta", None, None, NOW, False),  # Meta's install referrer
    ("view_through", "meta", None, TOUCH, NOW, True),  # a view gives way to a claim
    ("install_referrer", "google", None, None, NOW, True),  # Google's own click: fill it in
    ("install_referrer", "newsletter", None, None, NOW, False),  # times cannot be compared
    ("device_id", "network_a", uuid.uuid4(), TOUCH, NOW, True),  # Google's touch is later
    ("device_id", "network_a", uuid.uuid4(), TOUCH, TOUCH - timedelta(minutes=1), False),
    ("device_id", "network_a", uuid.uuid4(), TOUCH, None, False),
    ("google_ads", "google", None, TOUCH, NOW, False),
])
def test_where_googles_claim_stands(match_type, media_source, click_id, touch, google_touch,
                                    replaces):
    rule = google_ads_replaces(match_type=match_type, media_source=media_source,
                               click_id=click_id, touch_time=touch,
                               google_touch_time=google_touch)
    assert rule.replaces is replaces, rule.reason



# --- The trail in words ------------------------------------------------------------------------

def test_the_trail_says_in_words_that_googles_claim_moved_the_install():
    decision = {"steps": [google_ads_step(campaign_id="1", campaign_name="Spring", adset="2",
                                          network="Search", reason="why", replaced=True)],
                "method": "google_ads", "reattributed_from": {"method": "fingerprint"}}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary == ("Re-attributed to Google Ads on Google's claim after the install "
                            "(its App Conversion API); the waterfall had said fingerprint.")
    assert told.steps[-1].tier == "Google Ads"


def test_the_trail_says_in_words_that_googles_click_matched():
    verdict = run("gclid=Cj0K&utm_source=google&utm_campaign=spring")
    told = trail_in_words(verdict.trail, installed_at=NOW)
    assert told.summary == ("Matched google / spring by Google Ads' install referrer (its "
                            "click id in the Play referrer), click-through, in the Play "
                            "install referrer.")
