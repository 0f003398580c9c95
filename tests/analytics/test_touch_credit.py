"""The attribution models on one install. Pure: no database."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from analytics.touch_credit import Touch, install_credit

INSTALLED = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def touch(source, campaign, hours_before, click_id="c"):
    return Touch(key=(source, campaign), at=INSTALLED - timedelta(hours=hours_before),
                 click_id=click_id)


def credit(touches, verdict=("fb", "1"), half_life=DAY):
    return install_credit(touches=touches, verdict=verdict, installed_at=INSTALLED,
                          half_life=half_life)


def test_a_single_touch_takes_all_credit_under_every_model():
    shares = credit([touch("fb", "1", 5)])
    assert list(shares) == [("fb", "1")]
    share = shares[("fb", "1")]
    assert (share.last_touch, share.first_touch, share.linear, share.time_decay) == (1, 1, 1, 1)
    assert share.touches == 1


def test_last_touch_is_the_verdict_and_first_touch_the_earliest_click():
    shares = credit([touch("fb", "1", 6, "a"), touch("google", "g", 74, "b"),
                     touch("fb", "2", 24, "c")])
    assert {k: s.last_touch for k, s in shares.items()} == {
        ("fb", "1"): 1, ("google", "g"): 0, ("fb", "2"): 0}
    assert {k: s.first_touch for k, s in shares.items()} == {
        ("fb", "1"): 0, ("google", "g"): 1, ("fb", "2"): 0}


def test_linear_thirds_add_up_to_exactly_one():
    shares = credit([touch("fb", "1", 6, "a"), touch("google", "g", 74, "b"),
                     touch("fb", "2", 24, "c")])
    linear = {k: s.linear for k, s in shares.items()}
    assert sum(linear.values()) == Decimal(1)
    # the rounding remainder goes to the largest share (ties: the largest key)
    assert linear == {("google", "g"): Decimal("0.3333333334"),
                      ("fb", "2"): Decimal("0.3333333333"),
                      ("fb", "1"): Decimal("0.3333333333")}


def test_two_clicks_of_one_campaign_count_twice():
    shares = credit([touch("fb", "1", 1, "a"), touch("fb", "1", 2, "b"),
                     touch("google", "g", 3, "c")])
    assert shares[("fb", "1")].touches == 2
    assert shares[("fb", "1")].linear == Decimal("0.6666666667")
    assert shares[("google", "g")].linear == Decimal("0.3333333333")


def test_time_decay_halves_a_touch_per_half_life():
    # 0 h and 24 h before the install with a 24 h half-life: weights 1 and 1/2
    shares = credit([touch("fb", "1", 0, "a"), touch("google", "g", 24, "b")])
    assert shares[("fb", "1")].time_decay == Decimal("0.6666666667")
    assert shares[("google", "g")].time_decay == Decimal("0.3333333333")
    # with a 12 h half-life the older touch weighs 1/4
    shares = credit([touch("fb", "1", 0, "a"), touch("google", "g", 24, "b")],
                    half_life=timedelta(hours=12))
    assert shares[("fb", "1")].time_decay == Decimal("0.8")
    assert shares[("google", "g")].time_decay == Decimal("0.2")


def test_time_decay_of_the_scenario_device():
    shares = credit([touch("fb", "1", 6, "a"), touch("google", "g", 74, "b"),
                     touch("fb", "2", 24, "c")])
    decay = {k: s.time_decay for k, s in shares.items()}
    assert sum(decay.values()) == Decimal(1)
    assert {k: round(float(v), 6) for k, v in decay.items()} == {
        ("fb", "1"): 0.576398, ("google", "g"): 0.080873, ("fb", "2"): 0.342729}


def test_no_touches_means_the_verdict_is_the_only_touchpoint():
    shares = credit([], verdict=("google", "g_c2"))
    assert list(shares) == [("google", "g_c2")]
    assert shares[("google", "g_c2")].time_decay == 1
    assert shares[("google", "g_c2")].touches == 1


def test_a_verdict_outside_the_touches_still_gets_last_touch():
    shares = credit([touch("google", "g", 3)], verdict=("fb", "1"))
    assert shares[("fb", "1")].last_touch == 1 and shares[("fb", "1")].linear == 0
    assert shares[("google", "g")].first_touch == 1 and shares[("google", "g")].linear == 1
    assert shares[("fb", "1")].touches == 0


def test_ties_in_time_are_broken_by_click_id():
    shares = credit([touch("google", "g", 5, "b"), touch("fb", "1", 5, "a")])
    assert shares[("fb", "1")].first_touch == 1
