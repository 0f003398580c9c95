"""The outbox's pure timing rules (outbox/timing.py): no database."""

from outbox import timing


def test_the_lease_outlasts_a_full_length_try():
    assert timing.lease_seconds(10) > 2 * 10


def test_jitter_moves_a_delay_by_ten_percent_either_way():
    assert timing.jittered(100, 0) == 90
    assert timing.jittered(100, 0.5) == 100
    assert 109.9 < timing.jittered(100, 0.999999) <= 110


def test_jitter_never_makes_a_delay_negative():
    assert timing.jittered(0, 0) == 0
