"""The request-path rules (fraud/rules.py), pure: thresholds, modes, and the install verdict."""

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fraud import rules
from fraud import verdict as v
from fraud.selectors import FraudSettings
from tracking.waterfall_inputs import ClickCandidate

INSTALL = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
DEFAULTS = FraudSettings()
# Every rule that can refuse a click in block mode: the timing rules flag by default.
STRICT = FraudSettings(ctit_anomalies_mode=v.BLOCK, too_many_engagements_mode=v.BLOCK)


def strict(**changes):
    return replace(STRICT, **changes)


def click(seconds_before, *, source="network_a", device="gaid-1", fingerprint="fp-1"):
    return ClickCandidate(id=uuid.uuid4(), clicked_at=INSTALL - timedelta(seconds=seconds_before),
                          media_source=source, campaign_id="c", advertising_id=device,
                          fingerprint=fingerprint)


def screen(clicks, *, settings=STRICT, begin=None, flooding=frozenset(), test_device=False):
    return rules.screen_clicks(clicks, installed_at=INSTALL, install_begin_at=begin,
                               settings=settings, flooding=flooding, test_device=test_device)


def reasons(result, c):
    return [(f.mode, f.reason) for f in result.of(c.id)]


def test_a_click_after_install_begin_is_refused_as_engagement_injection_with_its_seconds():
    begin = INSTALL - timedelta(seconds=120)
    injected, honest = click(60), click(3600)
    result = screen([injected, honest], begin=begin)
    assert reasons(result, injected) == [(v.BLOCK, v.Reason(v.ENGAGEMENT_INJECTION, 60))]
    assert result.eligible([injected, honest]) == [honest]


def test_a_click_exactly_at_install_begin_is_not_injection():
    assert not screen([c := click(120)], begin=INSTALL - timedelta(seconds=120)).of(c.id)


def test_without_an_install_begin_time_injection_cannot_be_told():
    assert not screen([c := click(60)]).of(c.id)


def test_ctit_below_the_floor_is_refused_and_at_the_floor_is_not():
    hijack, edge = click(3), click(10)
    result = screen([hijack, edge])
    assert reasons(result, hijack) == [(v.BLOCK, v.Reason(v.CTIT_ANOMALIES, 3))]
    assert result.of(edge.id) == ()


def test_by_default_the_timing_rules_flag_and_leave_the_click_eligible():
    hijack = click(1)
    burst = [click(600 + n, device="gaid-2") for n in range(6)]
    result = screen([hijack, *burst], settings=DEFAULTS)
    assert reasons(result, hijack) == [(v.FLAG, v.Reason(v.CTIT_ANOMALIES, 1))]
    assert reasons(result, burst[0]) == [(v.FLAG, v.Reason(v.TOO_MANY_ENGAGEMENTS, 6))]
    assert result.eligible([hijack, *burst]) == [hijack, *burst]


def test_the_ctit_floor_is_the_apps():
    c = click(25)
    assert screen([c], settings=strict(ctit_floor_seconds=30)).refused(c.id)
    assert not screen([c], settings=strict(ctit_floor_seconds=20)).refused(c.id)


def test_flag_mode_marks_the_click_but_leaves_it_eligible():
    c = click(3)
    result = screen([c], settings=FraudSettings(ctit_anomalies_mode=v.FLAG))
    assert reasons(result, c) == [(v.FLAG, v.Reason(v.CTIT_ANOMALIES, 3))]
    assert result.eligible([c]) == [c]


def test_off_mode_finds_nothing():
    c = click(3)
    settings = FraudSettings(ctit_anomalies_mode=v.OFF, engagement_injection_mode=v.OFF)
    assert screen([c], settings=settings, begin=INSTALL - timedelta(hours=1)).of(c.id) == ()


def test_a_burst_of_clicks_beyond_the_hourly_limit_is_refused_whole():
    burst = [click(600 + n) for n in range(6)]  # six within a minute, limit 5
    result = screen(burst)
    assert [f.reason for c in burst for f in result.of(c.id)] == [
        v.Reason(v.TOO_MANY_ENGAGEMENTS, 6)] * 6
    assert result.eligible(burst) == []


def test_clicks_at_the_hourly_limit_are_eligible():
    burst = [click(600 + n) for n in range(5)]
    assert screen(burst).eligible(burst) == burst


def test_clicks_more_than_an_hour_apart_do_not_add_up():
    spread = [click(600 + n * 3700) for n in range(8)]
    assert all(not screen(spread).of(c.id) for c in spread)


def test_engagements_count_per_source_and_fall_back_to_the_fingerprint():
    mixed = [click(600 + n, source=f"net{n % 2}", device=None) for n in range(10)]
    result = screen(mixed)
    assert sum(bool(result.of(c.id)) for c in mixed) == 0  # five per source: at the limit
    same = [click(600 + n, device=None) for n in range(6)]
    assert all(screen(same).refused(c.id) for c in same)


def test_the_engagement_limit_is_the_apps():
    burst = [click(600 + n) for n in range(3)]
    result = screen(burst, settings=strict(too_many_engagements_per_hour=2))
    assert [f.reason for c in burst for f in result.of(c.id)] == [
        v.Reason(v.TOO_MANY_ENGAGEMENTS, 3)] * 3


def test_a_flooding_sources_clicks_are_refused_or_flagged_by_mode():
    flood, other = click(4000, source="flooder"), click(5000, source="honest")
    result = screen([flood, other], flooding=frozenset({"flooder"}))
    assert reasons(result, flood) == [(v.BLOCK, v.Reason(v.CLICK_FLOOD, None, "flooder"))]
    assert result.of(other.id) == ()
    flagged = screen([flood], flooding=frozenset({"flooder"}),
                     settings=strict(click_flood_mode=v.FLAG))
    assert not flagged.refused(flood.id) and flagged.of(flood.id)


def test_a_test_device_is_flagged_never_blocked():
    c = click(2)
    result = screen([c], test_device=True)
    assert reasons(result, c) == [(v.FLAG, v.Reason(v.CTIT_ANOMALIES, 2))]


def test_a_click_matching_two_rules_carries_both_with_the_blocking_first():
    c = click(2)
    settings = strict(engagement_injection_mode=v.FLAG)
    result = screen([c], settings=settings, begin=INSTALL - timedelta(seconds=30))
    assert [f.mode for f in result.of(c.id)] == [v.BLOCK, v.FLAG]


# --- The install's verdict -------------------------------------------------------------------

def test_a_refused_winner_with_nothing_else_eligible_blocks_the_install():
    hijack = click(3)
    result = screen([hijack])
    outcome = rules.install_verdict(screen=result, winner_id=None, credited=False,
                                    unscreened_winner_id=hijack.id)
    assert outcome.verdict == v.Verdict(v.BLOCKED, (v.Reason(v.CTIT_ANOMALIES, 3),))
    assert outcome.refused_click_id == hijack.id


def test_a_refused_winner_replaced_by_an_earlier_click_is_credited_and_flagged():
    hijack, honest = click(3), click(4000)
    result = screen([hijack, honest])
    outcome = rules.install_verdict(screen=result, winner_id=honest.id, credited=True,
                                    unscreened_winner_id=hijack.id)
    assert outcome.verdict.status == v.FLAGGED
    assert outcome.refused_click_id == hijack.id


def test_a_refused_click_that_would_not_have_won_leaves_the_install_clean():
    loser, winner = click(3, source="x", device="other"), click(4000)
    result = screen([loser, winner])
    outcome = rules.install_verdict(screen=result, winner_id=winner.id, credited=True,
                                    unscreened_winner_id=winner.id)
    assert outcome == rules.InstallVerdict(v.CLEAN_VERDICT)


def test_a_flagged_winner_flags_the_install():
    c = click(3)
    result = screen([c], settings=FraudSettings(ctit_anomalies_mode=v.FLAG))
    outcome = rules.install_verdict(screen=result, winner_id=c.id, credited=True,
                                    unscreened_winner_id=c.id)
    assert outcome.verdict == v.Verdict(v.FLAGGED, (v.Reason(v.CTIT_ANOMALIES, 3),))
    assert outcome.refused_click_id is None


def test_an_install_rule_in_block_mode_blocks_even_a_clean_winner():
    c = click(4000)
    finding = rules.Finding(v.BLOCK, v.Reason(v.ANONYMOUS_TRAFFIC, None, "listed_network"))
    outcome = rules.install_verdict(screen=screen([c]), winner_id=c.id, credited=True,
                                    unscreened_winner_id=c.id, install_findings=[finding])
    assert outcome.verdict.status == v.BLOCKED
    assert outcome.refused_click_id == c.id


def test_a_test_device_install_rule_only_flags():
    c = click(4000)
    finding = rules.Finding(v.BLOCK, v.Reason(v.ANONYMOUS_TRAFFIC, None, "listed_network"))
    outcome = rules.install_verdict(screen=screen([c]), winner_id=c.id, credited=True,
                                    unscreened_winner_id=c.id, install_findings=[finding],
                                    test_device=True)
    assert outcome.verdict.status == v.FLAGGED
