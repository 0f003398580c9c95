"""Meta's install referrer in the waterfall (docs/networks.md, "Where each claim sits"): pure,
no database. Our own click id > Meta's click > device id > fingerprint > Meta's view."""

from datetime import timedelta

from tests.tracking.test_attribution import NOW, click, run
from tracking.attribution import platform_click_match, platform_view_match
from tracking.referrer import ReferrerInfo
from tracking.trail_words import trail_in_words
from tracking.waterfall_inputs import PlatformReferrer

CAMPAIGN = {"campaign_group_id": "654321", "campaign_id": "987654", "adgroup_id": "54321"}


def meta(*, click=True, hours_ago=None, origin="play_referrer", **overrides):
    values = dict(media_source="meta", origin=origin, click=click,
                  touch_time=NOW - timedelta(hours=hours_ago) if hours_ago is not None else None,
                  campaign_id="654321", adset="987654", ad="54321",
                  metadata={"platform": "meta", "origin": origin,
                            "touch": "click" if click else "view", "campaign": CAMPAIGN})
    values.update(overrides)
    return PlatformReferrer(**values)


def outcomes(verdict):
    return [s["outcome"] for s in verdict.trail["steps"] if s["method"] == "platform_referrer"]


def test_metas_play_referrer_alone_is_meta_654321_by_referrer():
    verdict = run(platform_referrers=[meta()])
    assert (verdict.match_type, verdict.confidence, verdict.media_source, verdict.campaign_id,
            verdict.adset, verdict.ad) == ("install_referrer", 100.0, "meta", "654321",
                                           "987654", "54321")
    assert verdict.platform_metadata["campaign"] == CAMPAIGN
    assert verdict.touch_time is None and verdict.click is None
    assert outcomes(verdict) == ["Meta install referrer (decrypted): click-through, matched"]


def test_our_own_click_id_in_the_referrer_beats_metas_referrer():
    named = click(media_source="network", campaign_id="n1")
    verdict = run(referrer=ReferrerInfo(click_id=named.id, media_source="network",
                                        campaign_id="n1"),
                  referrer_click=named, platform_referrers=[meta()])
    assert (verdict.media_source, verdict.click) == ("network", named)
    assert verdict.platform_metadata is None
    assert outcomes(verdict) == [
        "Meta install referrer (decrypted): our own click id in the referrer won"]


def test_metas_referrer_beats_a_device_id_click():
    device = click(advertising_id="gaid-1", minutes_ago=5)
    verdict = run(device_candidates=[device], platform_referrers=[meta()])
    assert (verdict.match_type, verdict.media_source) == ("install_referrer", "meta")
    assert verdict.trail["candidates"] == [{
        "click_id": str(device.id), "clicked_at": device.clicked_at.isoformat(),
        "media_source": "fb", "campaign_id": "c1",
        "lost_because": "Meta install referrer named the click"}]


def test_metas_referrer_beats_a_fingerprint_click():
    network = click(minutes_ago=5)
    verdict = run(fingerprint_candidates=[network], platform_referrers=[meta()])
    assert verdict.media_source == "meta"
    assert verdict.trail["candidates"][0]["click_id"] == str(network.id)


def test_a_referrer_that_did_not_decrypt_attributes_nothing_and_says_why():
    unreadable = PlatformReferrer(media_source="meta", origin="play_referrer",
                                  unreadable="Meta's data did not decrypt with the app's key")
    verdict = run(platform_referrers=[unreadable])
    assert verdict.match_type == "organic"
    assert outcomes(verdict) == [
        "Meta install referrer not used: Meta's data did not decrypt with the app's key"]
    device = click(advertising_id="gaid-1")
    assert run(device_candidates=[device], platform_referrers=[unreadable]).click == device


def test_metas_click_through_in_the_window_counts_like_the_play_referrer():
    verdict = run(platform_referrers=[meta(origin="meta_install_referrer", hours_ago=30)])
    assert (verdict.match_type, verdict.media_source) == ("install_referrer", "meta")
    assert verdict.touch_time == NOW - timedelta(hours=30)


def test_metas_click_through_outside_the_window_does_not_count():
    old = meta(origin="meta_install_referrer", hours_ago=8 * 24)
    assert platform_click_match([old], installed_at=NOW) is None
    verdict = run(platform_referrers=[old])
    assert verdict.match_type == "organic"
    assert outcomes(verdict) == [
        "Meta install referrer (decrypted): the click is outside the 7-day window"]


def test_metas_install_referrer_with_its_time_is_preferred_over_the_play_referrer():
    play, own = meta(), meta(origin="meta_install_referrer", hours_ago=2, campaign_id="777")
    verdict = run(platform_referrers=[play, own])
    assert verdict.campaign_id == "777"
    assert outcomes(verdict) == ["Meta install referrer (decrypted): another referrer won",
                                 "Meta install referrer (decrypted): click-through, matched"]


def test_a_view_counts_when_no_click_of_any_source_qualifies():
    view = meta(click=False, origin="meta_install_referrer", hours_ago=3)
    verdict = run(platform_referrers=[view])
    assert (verdict.match_type, verdict.media_source, verdict.campaign_id) == (
        "view_through", "meta", "654321")
    assert verdict.touch_time == NOW - timedelta(hours=3)
    assert outcomes(verdict) == ["Meta install referrer (decrypted): view-through, matched"]


def test_a_device_id_click_beats_metas_view():
    view = meta(click=False, origin="meta_install_referrer", hours_ago=1)
    device = click(advertising_id="gaid-1", minutes_ago=600)
    verdict = run(device_candidates=[device], platform_referrers=[view])
    assert (verdict.match_type, verdict.click) == ("device_id", device)
    assert outcomes(verdict) == ["Meta install referrer (decrypted): view-through counts only "
                                 "when no click qualifies; device_id matched a click"]


def test_a_fingerprint_click_beats_metas_view():
    view = meta(click=False, origin="meta_install_referrer", hours_ago=1)
    network = click(minutes_ago=5)
    verdict = run(fingerprint_candidates=[network], platform_referrers=[view])
    assert verdict.match_type == "fingerprint" and verdict.click == network


def test_a_view_outside_the_view_window_does_not_count():
    view = meta(click=False, origin="meta_install_referrer", hours_ago=25)
    assert platform_view_match([view], installed_at=NOW) is None
    assert run(platform_referrers=[view]).match_type == "organic"
    wider = run(platform_referrers=[view], view_window=timedelta(hours=48))
    assert wider.match_type == "view_through"
    assert outcomes(run(platform_referrers=[view])) == [
        "Meta install referrer (decrypted): the view is outside the 24-hour view window"]


def test_the_trail_in_words_names_metas_referrer():
    words = trail_in_words(run(platform_referrers=[meta()]).trail, installed_at=NOW)
    assert words.summary == ("Matched meta / 654321 by Meta's install referrer (decrypted), "
                             "click-through, in the Play install referrer.")
    view = meta(click=False, origin="meta_install_referrer", hours_ago=1)
    words = trail_in_words(run(platform_referrers=[view]).trail, installed_at=NOW)
    assert words.summary == ("Matched meta / 654321 by Meta's install referrer (decrypted), "
                             "view-through, in Meta's own install referrer.")
    assert "Meta install referrer (decrypted): view-through, matched." in [
        s.sentence for s in words.steps]
