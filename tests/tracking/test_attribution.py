"""The attribution waterfall: pure, no database. Each test is one rule."""

import uuid
from datetime import UTC, datetime, timedelta

from tracking.attribution import (
    attribute,
    clicks_of_device,
    device_match,
    fingerprint_match,
    reengagement,
    referrer_match,
    usable_device_id,
)
from tracking.referrer import ReferrerInfo
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
ANDROID = InstallSignals(platform="android", device_id="gaid-1", ip="81.2.69.7",
                         os_family="Android", os_version="14", device_model="SM-S918B",
                         language="en-US")


def click(minutes_ago=30, **overrides):
    values = dict(id=uuid.uuid4(), clicked_at=NOW - timedelta(minutes=minutes_ago),
                  media_source="fb", campaign_id="c1", ip="81.2.69.7",
                  fingerprint=str(uuid.uuid4()), os_family="Android", os_version="14",
                  device_model="SM-S918B", accept_language="en-US")
    values.update(overrides)
    return ClickCandidate(**values)


def run(**kwargs):
    defaults = dict(installed_at=NOW, signals=ANDROID, referrer=None, referrer_click=None,
                    device_candidates=[], fingerprint_candidates=[])
    defaults.update(kwargs)
    return attribute(**defaults)


def test_referrer_naming_a_click_wins_with_100_over_everything():
    named = click(media_source="google", campaign_id="g1")
    device = click(advertising_id="gaid-1", minutes_ago=5)
    verdict = run(referrer=ReferrerInfo(click_id=named.id, media_source="google",
                                        campaign_id="g1"),
                  referrer_click=named, device_candidates=[device])
    assert (verdict.match_type, verdict.confidence, verdict.click) == (
        "install_referrer", 100.0, named)
    assert verdict.touch_time == named.clicked_at
    assert verdict.trail["candidates"][0]["lost_because"] == (
        "install referrer named another click")


def test_referrer_naming_only_a_source_matches_without_a_click():
    verdict = run(referrer=ReferrerInfo(click_id=None, media_source="newsletter",
                                        campaign_id="nov"))
    assert verdict.match_type == "install_referrer"
    assert (verdict.media_source, verdict.campaign_id, verdict.touch_time) == (
        "newsletter", "nov", None)


def test_referrer_naming_our_click_outside_the_window_falls_through():
    stale = click(minutes_ago=8 * 24 * 60, media_source="google")
    verdict = run(referrer=ReferrerInfo(click_id=stale.id, media_source="google",
                                        campaign_id="g1"), referrer_click=stale)
    assert verdict.match_type == "organic"
    assert verdict.trail["steps"][0]["outcome"] == "named click is unknown or outside the window"


def test_referrer_naming_an_unknown_click_of_ours_falls_through_to_the_device():
    device = click(advertising_id="gaid-1", media_source="tiktok")
    verdict = run(referrer=ReferrerInfo(click_id=device.id.__class__(int=5),
                                        media_source="google", campaign_id="g1"),
                  referrer_click=None, device_candidates=[device])
    assert (verdict.match_type, verdict.media_source) == ("device_id", "tiktok")


def test_device_id_matches_the_latest_click_in_the_window():
    old, new = click(120, advertising_id="gaid-1", media_source="old"), click(
        10, advertising_id="gaid-1", media_source="new")
    verdict = run(device_candidates=[old, new])
    assert (verdict.match_type, verdict.confidence, verdict.media_source) == (
        "device_id", 100.0, "new")
    assert verdict.trail["candidates"][0]["lost_because"] == (
        "a later click of the same device won")


def test_device_id_ties_are_broken_by_click_id():
    a = click(10, advertising_id="gaid-1", id=uuid.UUID(int=1))
    b = click(10, advertising_id="gaid-1", id=uuid.UUID(int=2))
    assert run(device_candidates=[a, b]).click == b
    assert run(device_candidates=[b, a]).click == b


def test_device_id_with_contradicting_os_scores_95():
    verdict = run(device_candidates=[click(advertising_id="gaid-1", os_family="iOS")])
    assert verdict.confidence == 95.0


def test_clicks_older_than_seven_days_never_match():
    stale = click(minutes_ago=7 * 24 * 60 + 1, advertising_id="gaid-1")
    verdict = run(device_candidates=[stale], fingerprint_candidates=[stale])
    assert verdict.match_type == "organic"
    assert verdict.trail["candidates"][0]["lost_because"] == "outside the 7-day window"


def test_zeroed_device_ids_never_match():
    zeroed = "00000000-0000-0000-0000-000000000000"
    signals = InstallSignals(platform="ios", device_id=zeroed)
    verdict = run(signals=signals, device_candidates=[click(advertising_id=zeroed)])
    assert verdict.match_type == "organic"
    assert usable_device_id(zeroed) is None and usable_device_id(" ABC ") == "abc"


def test_fingerprint_matches_when_the_score_reaches_60():
    verdict = run(signals=InstallSignals(**{**ANDROID.__dict__, "device_id": None}),
                  fingerprint_candidates=[click()])
    assert verdict.match_type == "fingerprint"
    assert 60 <= verdict.confidence <= 80
    assert verdict.trail["factors"]["ip"] == 40


def test_fingerprint_below_60_is_organic_with_the_reason():
    weak = click(ip="81.2.69.99", os_version="12", accept_language="fr")
    verdict = run(signals=InstallSignals(**{**ANDROID.__dict__, "device_id": None}),
                  fingerprint_candidates=[weak])
    assert verdict.match_type == "organic" and verdict.confidence == 0
    assert verdict.trail["candidates"][0]["lost_because"].startswith("score ")


def test_organic_result_has_no_source():
    verdict = run()
    assert (verdict.match_type, verdict.is_organic, verdict.media_source,
            verdict.campaign_id, verdict.touch_time, verdict.confidence) == (
        "organic", True, None, None, None, 0.0)
    assert [s["method"] for s in verdict.trail["steps"]] == [
        "install_referrer", "device_id", "fingerprint"]


# --- Each tier's decision on its own ---------------------------------------------------------

def test_a_referrer_naming_a_click_in_the_window_matches_that_click():
    named = click()
    match = referrer_match(ReferrerInfo(click_id=named.id, media_source="fb", campaign_id="c1"),
                           named, installed_at=NOW)
    assert (match.method, match.confidence, match.click, match.source) == (
        "install_referrer", 100.0, named, None)


def test_a_referrer_naming_a_stale_or_unknown_click_decides_nothing():
    stale = click(minutes_ago=8 * 24 * 60)
    names_it = ReferrerInfo(click_id=stale.id, media_source="fb", campaign_id="c1")
    assert referrer_match(names_it, stale, installed_at=NOW) is None
    assert referrer_match(names_it, None, installed_at=NOW) is None
    assert referrer_match(None, None, installed_at=NOW) is None


def test_a_referrer_naming_only_a_source_matches_without_a_click():
    source = ReferrerInfo(click_id=None, media_source="newsletter", campaign_id="nov")
    match = referrer_match(source, None, installed_at=NOW)
    assert (match.click, match.source, match.evidence["factors"]) == (
        None, source, {"referrer_source": "newsletter"})


def test_only_the_devices_own_clicks_in_the_window_are_its_clicks():
    own = click(advertising_id="GAID-1")
    other = click(advertising_id="gaid-2")
    stale = click(minutes_ago=7 * 24 * 60 + 1, advertising_id="gaid-1")
    assert clicks_of_device([own, other, stale], "gaid-1", installed_at=NOW) == [own]
    assert clicks_of_device([own], None, installed_at=NOW) == []


def test_the_device_tier_takes_the_latest_click_and_95_when_its_os_contradicts():
    old, new = click(120), click(10, os_family="iOS")
    match = device_match([old, new], os_family="Android")
    assert (match.click, match.confidence, match.evidence["factors"]) == (
        new, 95.0, {"device_id": 100, "os_contradiction": -5})
    assert device_match([old], os_family="Android").confidence == 100.0
    assert device_match([], os_family="Android") is None


def test_the_fingerprint_tier_takes_the_latest_qualifying_click():
    from tracking import fingerprint

    def scored(minutes_ago, confidence):
        item = click(minutes_ago)
        return fingerprint.Scored(item, fingerprint.Score(confidence, int(confidence)))

    weak, older, newer = scored(1, 59.0), scored(90, 75.0), scored(30, 61.0)
    match = fingerprint_match([weak, older, newer])
    assert (match.method, match.click, match.confidence) == ("fingerprint", newer.click, 61.0)
    assert fingerprint_match([weak]) is None


# --- Re-engagement ---------------------------------------------------------------------------

INSTALLED = NOW - timedelta(days=2)


def test_a_click_after_the_install_re_engages_with_the_latest_such_click():
    before, after, latest = (click(3 * 24 * 60), click(24 * 60, media_source="rt"),
                             click(60, media_source="", campaign_id=""))
    verdict = reengagement(now=NOW, installed_at=INSTALLED, last_reengagement_click_at=None,
                           device_clicks=[before, latest, after])
    assert (verdict.match_type, verdict.confidence, verdict.click) == ("device_id", 100.0, latest)
    assert (verdict.media_source, verdict.campaign_id, verdict.touch_time) == (
        None, None, latest.clicked_at)


def test_no_click_since_the_last_attribution_is_no_re_engagement():
    used = click(60)
    assert reengagement(now=NOW, installed_at=INSTALLED, last_reengagement_click_at=None,
                        device_clicks=[click(3 * 24 * 60)]) is None
    assert reengagement(now=NOW, installed_at=INSTALLED,
                        last_reengagement_click_at=used.clicked_at,
                        device_clicks=[used, click(120)]) is None


def test_a_click_older_than_the_window_never_re_engages():
    long_ago = NOW - timedelta(days=30)
    assert reengagement(now=NOW, installed_at=long_ago, last_reengagement_click_at=None,
                        device_clicks=[click(7 * 24 * 60 + 1)]) is None
    assert reengagement(now=NOW, installed_at=long_ago, last_reengagement_click_at=None,
                        device_clicks=[click(7 * 24 * 60 - 1)]) is not None
