"""The attribution waterfall: pure, no database. Each test is one rule."""

import uuid
from datetime import UTC, datetime, timedelta

from tracking.attribution import attribute, usable_device_id
from tracking.referrer import ReferrerInfo
from tracking.signals import ClickCandidate, InstallSignals

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
