"""The decision trail in plain words: pure, no database. Trails come from the waterfall itself
(`attribute` with plain values) and, for the shapes it no longer writes, by hand."""

import uuid
from datetime import UTC, datetime, timedelta

from tracking.attribution import MAX_TRAIL_CANDIDATES, attribute
from tracking.referrer import ReferrerInfo
from tracking.trail_words import NO_TRAIL, LostClick, Step, trail_in_words
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

NOW = datetime(2026, 11, 20, 14, 30, tzinfo=UTC)
ANDROID = InstallSignals(platform="android", device_id="gaid-1", ip="81.2.69.7",
                         os_family="Android", os_version="14", device_model="SM-S918B",
                         language="en-US")


def click(minutes_ago=30, **overrides):
    values = dict(id=uuid.uuid4(), clicked_at=NOW - timedelta(minutes=minutes_ago),
                  media_source="facebook", campaign_id="summer", ip="81.2.69.7",
                  fingerprint=str(uuid.uuid4()), os_family="Android", os_version="14",
                  device_model="SM-S918B", accept_language="en-US")
    values.update(overrides)
    return ClickCandidate(**values)


def words(**kwargs):
    defaults = dict(installed_at=NOW, signals=ANDROID, referrer=None, referrer_click=None,
                    device_candidates=[], fingerprint_candidates=[])
    defaults.update(kwargs)
    return trail_in_words(attribute(**defaults).trail, installed_at=NOW)


def test_a_device_id_match_reads_as_the_issue_says():
    told = words(device_candidates=[click(28, advertising_id="gaid-1")])
    assert told.summary == "Matched the click of 14:02 from facebook / summer by device id."
    assert told.steps == (
        Step("Install referrer", "The install sent no referrer naming a click or a source."),
        Step("Device id", "Matched the click of 14:02 from facebook / summer, confidence 100."),
        Step("Fingerprint", "Not tried: the device id matched first."),
    )
    assert told.evidence == ("same device id +100",)
    assert told.window == "Clicks from 2026-11-13 14:30 UTC up to the install took part."


def test_an_organic_install_says_what_each_tier_found_with_the_scores_below_60():
    unlike = dict(os_version="", device_model="", accept_language="de-DE")
    told = words(signals=InstallSignals(platform="android", device_id="gaid-2", ip="81.2.69.7",
                                        os_family="Android", language="fr-FR"),
                 device_candidates=[click(5, advertising_id="gaid-9")],
                 fingerprint_candidates=[click(600, ip="81.2.69.8", **unlike),
                                         click(720, ip="81.2.69.9", **unlike)])
    assert told.summary == ("Organic: no click with this device id; fingerprint: 2 clicks from "
                            "this network scored 22.44 and 21.88, below 60.")
    assert told.steps[2] == Step(
        "Fingerprint", "2 clicks from this network scored 22.44 and 21.88, below 60.")
    assert told.evidence == ()


def test_every_losing_click_has_its_time_source_tier_reason_and_evidence():
    told = words(signals=InstallSignals(platform="android", device_id="gaid-2", ip="81.2.69.7",
                                        os_family="Android", language="fr-FR"),
                 fingerprint_candidates=[click(600, ip="81.2.69.8", os_version="",
                                               device_model="", accept_language="de-DE")])
    assert told.lost == (LostClick(
        clicked_at="04:30", source="facebook / summer", tier="Fingerprint",
        reason="Scored 22.44, below 60", score="22.44",
        evidence="same network +25, same OS +10, different language -10"),)


def test_clicks_refused_outright_are_counted_by_reason_after_the_scores():
    told = words(signals=InstallSignals(platform="android", device_id="gaid-2", ip="81.2.69.7",
                                        os_family="Android", language="fr-FR"),
                 fingerprint_candidates=[click(600, accept_language="de-DE", os_version="",
                                               device_model=""),
                                         click(10, os_family="iOS")])
    assert told.summary.endswith("1 click from this network scored 35.91, below 60; 1 more click "
                                 "refused: different OS.")
    refused = told.lost[1]
    assert (refused.reason, refused.score, refused.evidence) == (
        "Different OS", "0", "same IP address +40")


def test_a_losing_click_of_another_day_shows_its_date():
    told = words(device_candidates=[click(28, advertising_id="gaid-1"),
                                    click(60 * 30, advertising_id="gaid-1", media_source="tiktok",
                                          campaign_id="")])
    assert told.lost == (LostClick(clicked_at="2026-11-19 08:30", source="tiktok",
                                   tier="Device id",
                                   reason="A later click of the same device won", score="",
                                   evidence=""),)


def test_a_click_outside_the_window_lost_for_that_reason():
    told = words(device_candidates=[click(8 * 24 * 60, advertising_id="gaid-1")])
    assert told.summary == "Organic: no click with this device id; fingerprint: no click from " \
                           "this network."
    assert told.lost[0].reason == "Outside the 7-day window"
    assert told.lost[0].clicked_at == "2026-11-12 14:30"


def test_clicks_a_device_match_made_unnecessary_lost_to_it():
    told = words(device_candidates=[click(28, advertising_id="gaid-1")],
                 fingerprint_candidates=[click(10, campaign_id="winter")])
    assert told.lost[0] == LostClick(
        clicked_at="14:20", source="facebook / winter", tier="",
        reason="The device id matched another click first", score="", evidence="")


def test_a_fingerprint_match_gives_its_score_and_each_factor():
    told = words(signals=InstallSignals(platform="android", device_id=None, ip="81.2.69.7",
                                        os_family="Android", os_version="14",
                                        device_model="SM-S918B", language="en-US"),
                 fingerprint_candidates=[click(10)])
    assert told.summary == ("Matched the click of 14:20 from facebook / summer by fingerprint, "
                            "score 80.")
    assert told.steps[1] == Step(
        "Device id", "The install sent no usable device id (none, or zeroed by "
                     "limit-ad-tracking).")
    assert told.evidence == ("same IP address +40", "same OS +10", "same OS version +10",
                             "same device model +15", "same language and region +10")


def test_look_alike_devices_show_as_penalties_on_the_match():
    install = InstallSignals(platform="android", device_id=None, ip="81.2.69.7",
                             os_family="Android", os_version="14", device_model="SM-S918B",
                             language="en-US")
    told = words(signals=install, fingerprint_candidates=[click(10), click(12)])
    assert "other devices on this network score alike -10" in told.evidence
    assert "other devices clicked from the same address -1.5" in told.evidence
    assert told.lost[0].reason == "Ambiguous: other devices on this network score alike"


def test_a_device_match_against_the_clicks_os_scores_95_and_says_why():
    told = words(device_candidates=[click(28, advertising_id="gaid-1", os_family="iOS")])
    assert told.steps[1].sentence.endswith("confidence 95.")
    assert told.evidence == ("same device id +100",
                             "the click's OS contradicts the install's platform -5")


def test_a_referrer_naming_our_click_matches_it_and_beats_the_device():
    named = click(45, media_source="google", campaign_id="g1")
    told = words(referrer=ReferrerInfo(click_id=named.id, media_source="google",
                                       campaign_id="g1"),
                 referrer_click=named, device_candidates=[click(5, advertising_id="gaid-1")])
    assert told.summary == "Matched the click of 13:45 from google / g1 by install referrer."
    assert [step.sentence for step in told.steps] == [
        "Matched the click of 13:45 from google / g1, confidence 100.",
        "Not tried: the install referrer matched first.",
        "Not tried: the install referrer matched first."]
    assert told.evidence == (f"the install referrer named click {named.id}",)
    assert told.lost[0].reason == "The install referrer named another click"


def test_a_referrer_naming_only_a_source_says_the_touch_time_is_unknown():
    told = words(referrer=ReferrerInfo(click_id=None, media_source="newsletter",
                                       campaign_id="nov"))
    assert told.summary == ("Matched newsletter by install referrer: it named the source, not a "
                            "click of ours, so the time of the touch is unknown.")
    assert told.steps[0] == Step(
        "Install referrer", "Named newsletter as the source, without a click of ours: matched.")


def test_a_referrer_naming_a_stale_click_is_part_of_the_organic_sentence():
    stale = click(8 * 24 * 60, media_source="google")
    told = words(referrer=ReferrerInfo(click_id=stale.id, media_source="google",
                                       campaign_id="g1"), referrer_click=stale)
    assert told.summary.startswith(
        "Organic: the referrer's click is unknown or outside the window; no click with this "
        "device id;")


def test_a_trail_holding_the_most_clicks_says_it_is_capped():
    crowd = [click(600 + n, ip=f"81.2.69.{n + 10}", fingerprint=f"f{n}", accept_language="de")
             for n in range(MAX_TRAIL_CANDIDATES + 5)]
    told = words(fingerprint_candidates=crowd)
    assert len(told.lost) == MAX_TRAIL_CANDIDATES and told.capped


def test_an_empty_trail_says_none_was_stored():
    for empty in ({}, None):
        told = trail_in_words(empty, installed_at=NOW)
        assert (told.summary, told.steps, told.lost, told.window) == (NO_TRAIL, (), (), "")


def test_a_first_version_trail_without_tiers_on_its_losers_still_reads():
    decision = {
        "window_start": "2026-11-13T14:30:00+00:00", "method": "organic", "score": 0,
        "factors": {},
        "steps": [{"method": "install_referrer", "outcome": "no usable referrer"},
                  {"method": "device_id", "outcome": "no usable device id"},
                  {"method": "fingerprint", "outcome": "no click scored 60 or more"}],
        "candidates": [
            {"click_id": "1", "clicked_at": "2026-11-20T14:02:00+00:00",
             "media_source": "facebook", "campaign_id": "summer", "confidence": 41.0,
             "factors": {"ip": 25}, "lost_because": "score 41.0 below 60"},
            {"click_id": "2", "clicked_at": "2026-11-20T13:00:00+00:00",
             "media_source": None, "campaign_id": None, "confidence": 38,
             "factors": {"ip": 25}, "lost_because": "score 38 below 60"}]}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary == ("Organic: no usable device id; fingerprint: 2 clicks from this "
                            "network scored 41 and 38, below 60.")
    assert [(lost.source, lost.tier) for lost in told.lost] == [("facebook / summer", ""),
                                                               ("no source", "")]


def test_a_first_version_fingerprint_match_shows_its_single_penalty():
    decision = {"method": "fingerprint", "score": 62.0, "factors": {"ip": 40, "os": 10},
                "ambiguity_penalty": 10.0,
                "click": {"clicked_at": "2026-11-20T14:00:00Z", "media_source": "x",
                          "campaign_id": "y"},
                "steps": [{"method": "fingerprint", "outcome": "matched"}], "candidates": []}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary == "Matched the click of 14:00 from x / y by fingerprint, score 62."
    assert told.evidence == ("same IP address +40", "same OS +10",
                             "other devices on this network score alike -10")


def test_what_it_does_not_know_it_repeats_as_stored():
    decision = {"method": "skan", "steps": [{"method": "skan", "outcome": "postback seen"}],
                "candidates": [{"clicked_at": "not a time", "lost_because": "cosmic rays"}]}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary == "Result: skan."
    assert told.steps == (Step("skan", "Postback seen."),)
    assert told.lost[0].clicked_at == "an unknown time"
    assert told.lost[0].reason == "Cosmic rays"


def test_times_are_read_in_utc_whatever_offset_was_stored():
    decision = {"method": "device_id", "score": 100.0, "factors": {"device_id": 100},
                "click": {"clicked_at": "2026-11-20T16:02:00+02:00", "media_source": "fb",
                          "campaign_id": "c"}}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary == "Matched the click of 14:02 from fb / c by device id."


def test_hostile_names_are_kept_as_plain_strings_for_the_page_to_escape():
    told = words(device_candidates=[click(28, advertising_id="gaid-1",
                                          media_source='"><img src=x>',
                                          campaign_id="<script>alert(1)</script>")])
    assert told.summary == ('Matched the click of 14:02 from "><img src=x> / '
                            '<script>alert(1)</script> by device id.')


def test_a_click_lost_in_two_tiers_is_listed_once_with_the_first_reason():
    older = click(120, advertising_id="gaid-1", campaign_id="spring")
    told = words(device_candidates=[older, click(20, advertising_id="gaid-1")],
                 fingerprint_candidates=[older])
    assert [(lost.source, lost.reason) for lost in told.lost] == [
        ("facebook / spring", "A later click of the same device won")]


def test_an_install_from_loopback_says_its_address_is_never_compared_not_that_no_click_was_there():
    loopback = InstallSignals(platform="android", device_id="gaid-3", ip="127.0.0.1",
                              os_family="Android")
    told = words(signals=loopback, device_candidates=[click(5, advertising_id="gaid-9")])
    assert told.summary == ("Organic: no click with this device id; fingerprint: the install's "
                            "loopback, private or carrier-NAT address is never compared.")
    assert told.steps[2] == Step(
        "Fingerprint", "The install came from a loopback, private or carrier-NAT address, which "
                       "is never compared with clicks (many devices share such addresses; clicks "
                       "from them are never compared either).")


def test_an_install_from_a_public_address_with_no_click_there_says_so():
    told = words(device_candidates=[click(5, advertising_id="gaid-9")])
    assert told.steps[2] == Step("Fingerprint",
                                 "No click from this install's network in the window.")


# --- What the fraud rules refused (tracking/fraud_gate.py writes these trails) ---------------

REFUSED_ENTRY = {"click_id": "c-1", "clicked_at": "2026-11-20T14:29:57+00:00",
                 "media_source": "hijacker", "campaign_id": "summer", "method": "fraud",
                 "reason": "ctit_anomalies", "value": 3, "sub_reason": "",
                 "lost_because": "not eligible: click 3 s before install: below the 10 s floor "
                                 "(install hijacking)"}


def blocked_trail(**fraud):
    return {
        "window_start": "2026-11-13T14:30:00+00:00", "method": "organic", "score": 0,
        "factors": {},
        "steps": [{"method": "install_referrer", "outcome": "no usable referrer"},
                  {"method": "device_id",
                   "outcome": "every click of this device refused by a fraud rule",
                   "refused": {"clicks": 1, "latest_click_id": "c-1"}},
                  {"method": "fingerprint", "outcome": "no click from this network"}],
        "candidates": [REFUSED_ENTRY],
        "fraud": {"status": "blocked", "reasons": [
            {"reason": "ctit_anomalies", "value": 3, "sub_reason": "",
             "words": "click 3 s before install: below the 10 s floor (install hijacking)"}],
            "refused": {**{k: REFUSED_ENTRY[k] for k in ("click_id", "clicked_at",
                                                         "media_source", "campaign_id")},
                        "method": "device_id"}, **fraud}}


def test_a_device_click_refused_by_a_rule_is_found_and_refused_not_missing():
    told = trail_in_words(blocked_trail(), installed_at=NOW)
    refusal = "click 3 s before install: below the 10 s floor (install hijacking)"
    assert told.summary == (
        f"Blocked: found the click of 14:29 from hijacker / summer with this device id and "
        f"refused it ({refusal}); no other click qualified, so the install was credited to no "
        "one (answered organic).")
    assert told.steps[1] == Step("Device id", "Found the click of 14:29 from hijacker / summer "
                                              f"with this device id and refused it ({refusal}).")
    assert told.lost[0].tier == "Fraud rules" and told.lost[0].reason == (
        f"Not eligible: {refusal}")


def test_several_refused_clicks_of_a_tier_are_counted_with_the_latest_named():
    decision = blocked_trail()
    decision["steps"][1]["refused"] = {"clicks": 3, "latest_click_id": "c-1"}
    told = trail_in_words(decision, installed_at=NOW)
    assert told.steps[1].sentence == (
        "Found 3 clicks with this device id, and fraud rules refused every one; the latest, of "
        "14:29 from hijacker / summer: click 3 s before install: below the 10 s floor (install "
        "hijacking).")


def test_more_refused_clicks_than_listed_are_counted():
    told = trail_in_words(blocked_trail(refused_clicks=30), installed_at=NOW)
    assert told.counts == ("Fraud rules refused 30 of the clicks read; the trail lists 1 of "
                           "them.",)


def test_a_burst_counted_again_in_the_click_records_gives_its_true_size():
    from tracking.trail_words import DeviceClicks

    entry = {**REFUSED_ENTRY, "reason": "too_many_engagements", "value": 20,
             "sub_reason": "at_least",
             "lost_because": "not eligible: at least 20 clicks from this device for this source "
                             "within an hour (limit 5), among the device's latest clicks the "
                             "decision reads"}
    decision = blocked_trail()
    decision["candidates"] = [entry]
    counted = DeviceClicks(total=50, complete=True, read=20, bursts={"c-1": 50})
    told = trail_in_words(decision, installed_at=NOW, device_clicks=counted)
    assert told.lost[0].reason == ("Not eligible: 50 clicks from this device for this source "
                                   "within an hour in the click records (the decision read 20 "
                                   "of them)")
    assert told.counts[0].startswith("This device has 50 clicks in the window in the click "
                                     "records; the decision read its 20 most recent")


def test_a_trail_from_before_the_refusals_were_recorded_still_reads():
    decision = blocked_trail()
    decision["steps"][1] = {"method": "device_id", "outcome": "no click with this device id"}
    del decision["fraud"]["refused"]["method"]
    told = trail_in_words(decision, installed_at=NOW)
    assert told.summary.startswith("Blocked: found the click of 14:29 from hijacker / summer "
                                   "and refused it (click 3 s before install")
    assert told.steps[1] == Step("Device id", "No click with this device id in the window.")
