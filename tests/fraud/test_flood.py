"""fraud/flood.py: the CTIT histogram and the click-flood test on synthetic sources (no
database). Clean sources follow the published figures (about 75% within an hour, 94-95% within
24 h); a flood spreads its clicks evenly over 7 days and converts about 0.02%. The late-share
test's error rate is checked by enumerating clean samples exactly and by simulating them."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from fraud import flood
from fraud.flood import BUCKETS, LateShare, SourceSample, Thresholds

ALPHA = Thresholds().alpha
LATE = 2 * 86400.0  # a CTIT of two days
SOON = 600.0  # ten minutes


def clean_ctits(rng: random.Random, n: int) -> tuple[float, ...]:
    out = []
    for _ in range(n):
        u = rng.random()
        if u < 0.75:
            out.append(min(3599.0, max(12.0, rng.lognormvariate(5.5, 0.9))))
        elif u < 0.945:
            out.append(3600 * 24 ** rng.random())
        else:
            out.append(86400 * 7 ** rng.random())
    return tuple(out)


def flood_ctits(rng: random.Random, n: int) -> tuple[float, ...]:
    return tuple(rng.uniform(0, 7 * 86400) for _ in range(n))


def test_buckets_are_the_reports_fixed_ones():
    assert [(b.label, b.from_seconds, b.to_seconds) for b in BUCKETS] == [
        ("0-10s", 0, 10), ("10-60s", 10, 60), ("1-10min", 60, 600), ("10-60min", 600, 3600),
        ("1-24h", 3600, 86400), ("1-7d", 86400, 604800)]


@pytest.mark.parametrize(("ctit", "index"), [
    (-5, 0), (0, 0), (9.99, 0), (10, 1), (59, 1), (60, 2), (599, 2), (600, 3), (3599, 3),
    (3600, 4), (86399, 4), (86400, 5), (604799, 5), (10 * 86400, 5)])
def test_each_ctit_falls_in_one_bucket_edges_going_up(ctit, index):
    assert flood.bucket_index(ctit) == index


def test_histogram_counts_per_bucket():
    assert flood.histogram([1, 2, 30, 4000, 90000, 90001]) == (2, 1, 0, 0, 1, 2)


def test_a_uniform_flood_converting_at_two_in_ten_thousand_is_flooding():
    rng = random.Random(1)
    findings = {f.media_source: f for f in flood.flooding([
        SourceSample("good_network", 4000, clean_ctits(rng, 120)),
        SourceSample("other_network", 2500, clean_ctits(rng, 60)),
        SourceSample("flooder", 150_000, flood_ctits(rng, 30)),
    ])}
    flooder = findings["flooder"]
    assert flooder.flooding
    assert flooder.conversion_rate == pytest.approx(0.0002)
    assert flooder.norm == pytest.approx((120 / 4000 + 60 / 2500) / 2)
    assert flooder.share_after_day > 0.7
    assert "flooding: " in flooder.explanation
    assert not findings["good_network"].flooding
    assert not findings["other_network"].flooding


def test_clean_sources_are_never_flooding_over_many_draws():
    rng = random.Random(2)
    for _ in range(300):
        findings = flood.flooding([
            SourceSample("a", 3000, clean_ctits(rng, 90)),
            SourceSample("b", 3000, clean_ctits(rng, 15)),
        ])
        assert not any(f.flooding for f in findings)


def test_late_installs_with_a_normal_conversion_rate_are_not_flooding():
    rng = random.Random(3)
    findings = {f.media_source: f for f in flood.flooding([
        SourceSample("good", 3000, clean_ctits(rng, 90)),
        SourceSample("slow_but_real", 1000, flood_ctits(rng, 30)),
    ])}
    assert not findings["slow_but_real"].flooding
    assert findings["slow_but_real"].p_value <= ALPHA  # late beyond chance, converting normally
    assert findings["slow_but_real"].share_after_day > 0.5


def test_a_poor_converter_with_a_clean_ctit_is_not_flooding():
    rng = random.Random(4)
    findings = {f.media_source: f for f in flood.flooding([
        SourceSample("good", 3000, clean_ctits(rng, 90)),
        SourceSample("display", 200_000, clean_ctits(rng, 40)),
    ])}
    assert findings["display"].conversion_rate < 0.001
    assert not findings["display"].flooding


def test_a_flood_mixed_with_a_third_of_real_clicks_is_still_flooding():
    rng = random.Random(5)
    mixed = clean_ctits(rng, 20) + flood_ctits(rng, 40)
    findings = {f.media_source: f for f in flood.flooding([
        SourceSample("good", 3000, clean_ctits(rng, 90)),
        SourceSample("mixed", 300_000, mixed),
    ])}
    assert findings["mixed"].flooding


def test_a_flood_of_fourteen_installs_is_flooding_without_a_minimum_sample():
    rng = random.Random(6)
    finding = flood.judge(SourceSample("small", 100_000, flood_ctits(rng, 14)), norm=0.03)
    assert finding.flooding
    assert finding.p_value <= ALPHA


def test_without_another_source_the_default_norm_applies():
    rng = random.Random(7)
    (finding,) = flood.flooding([SourceSample("alone", 200_000, flood_ctits(rng, 40))])
    assert finding.norm == Thresholds().default_norm
    assert finding.flooding


def test_sources_with_few_clicks_do_not_set_the_norm():
    rates = flood.norm_rates([SourceSample("tiny", 20, (1.0,) * 10),
                              SourceSample("big", 1000, (1.0,) * 30)])
    assert rates == {"big": 0.03}
    assert flood.app_norm(rates, excluding="big") == Thresholds().default_norm


def test_installs_without_clicks_are_never_flooding():
    rng = random.Random(8)
    finding = flood.judge(SourceSample("no_clicks", 0, flood_ctits(rng, 30)), norm=0.03)
    assert finding.conversion_rate is None and not finding.flooding


def test_stats_name_the_buckets():
    finding = flood.judge(SourceSample("x", 10, (5.0,)), norm=0.03)
    assert finding.stats()["histogram"] == {"0-10s": 1, "10-60s": 0, "1-10min": 0,
                                            "10-60min": 0, "1-24h": 0, "1-7d": 0}


# --- The dozen-install case and its borders -------------------------------------------------

def test_a_dozen_installs_ten_of_them_late_at_a_tenth_of_the_conversion_is_flooding():
    finding = flood.judge(SourceSample("flooder", 4_000, (LATE,) * 10 + (SOON,) * 2),
                          norm=0.03)
    assert finding.conversion_rate == pytest.approx(0.003)  # a tenth of the norm, exactly
    assert (finding.installs, finding.late_installs) == (12, 10)
    assert finding.p_value == pytest.approx(3.567e-11, rel=1e-3)
    assert finding.flooding
    assert finding.explanation.startswith(
        "flooding: 10 of 12 installs more than 24 h after the click (83.3%; clean traffic 6%), "
        "which clean traffic gives with a probability of 3.6e-11 (a flag needs 0.001 or less)")


def test_a_weeks_flood_of_a_dozen_stolen_installs_is_found_among_clean_sources():
    rng = random.Random(21)
    findings = {f.media_source: f for f in flood.flooding([
        SourceSample("good", 3_000, clean_ctits(rng, 90)),
        SourceSample("other", 2_000, clean_ctits(rng, 50)),
        SourceSample("flooder", 60_000, flood_ctits(rng, 12)),
    ])}
    assert findings["flooder"].flooding
    assert findings["flooder"].app_installs == 140  # the other sources are a baseline too
    assert not findings["good"].flooding and not findings["other"].flooding


def test_twelve_clean_installs_are_not_flooding_even_converting_poorly():
    rng = random.Random(22)
    for _ in range(200):
        finding = flood.judge(SourceSample("display", 100_000, clean_ctits(rng, 12)),
                              norm=0.03)
        assert not finding.flooding


@pytest.mark.parametrize(("late", "installs", "flooding"), [
    (5, 12, True),  # P = 4.3e-4
    (4, 12, False),  # P = 4.3e-3
    (3, 3, True),  # P = 2.2e-4: the smallest sample a flag can rest on
    (2, 2, False),  # P = 3.6e-3
    (1, 1, False),
    (6, 20, True),
    (5, 20, False),
])
def test_the_late_share_test_at_its_borders(late, installs, flooding):
    ctits = (LATE,) * late + (SOON,) * (installs - late)
    finding = flood.judge(SourceSample("s", 100_000, ctits), norm=0.03)
    assert finding.flooding is flooding
    assert (finding.p_value <= ALPHA) is flooding


def test_the_conversion_test_at_its_border():
    ctits = (LATE,) * 12
    assert flood.judge(SourceSample("s", 4_000, ctits), norm=0.03).flooding
    assert not flood.judge(SourceSample("s", 3_999, ctits), norm=0.03).flooding


def test_a_clean_source_with_many_installs_converting_poorly_is_not_flooding():
    rng = random.Random(23)
    ctits = clean_ctits(rng, 2_000)
    finding = flood.judge(SourceSample("display", 2_000_000, ctits), norm=0.03,
                          app=LateShare(5_000, 280))
    assert finding.conversion_rate == pytest.approx(0.001)
    assert not finding.flooding


def test_a_long_tail_that_decays_is_judged_by_its_late_share_not_its_shape():
    # 12 installs in 1-24 h against 20 later: a density ratio of 0.27, under the 0.30 a flat
    # CTIT once needed, yet 20 of 32 late is far beyond clean traffic.
    ctits = (5 * 3600.0,) * 12 + (LATE,) * 20
    finding = flood.judge(SourceSample("s", 100_000, ctits), norm=0.03)
    assert finding.density_ratio == pytest.approx(20 * 23 / (144 * 12))
    assert finding.flooding


def test_an_app_whose_users_install_slowly_raises_the_bar_for_its_sources():
    # Every source of this app has a fifth of its installs more than a day after the click.
    slow = (LATE,) * 40 + (SOON,) * 160
    app = flood.app_late_share(flood.late_shares([SourceSample("a", 3_000, slow),
                                                  SourceSample("b", 3_000, slow)]),
                               excluding="display")
    assert app == LateShare(400, 80)
    display = SourceSample("display", 200_000, slow)
    # Against published clean traffic alone (6%), 40 late of 200 would be flagged...
    assert flood.judge(display, norm=0.067).flooding
    # ...but it is no later than the app's own traffic.
    finding = flood.judge(display, norm=0.067, app=app)
    assert finding.p_value > ALPHA and not finding.flooding
    assert "the app's other sources 20% of 400" in finding.explanation
    flooder = SourceSample("flooder", 100_000, (LATE,) * 10 + (SOON,) * 2)
    assert flood.judge(flooder, norm=0.067, app=app).flooding


def test_other_sources_with_too_few_installs_are_no_baseline():
    shares = {"a": LateShare(99, 5), "s": LateShare(12, 10)}
    assert flood.app_late_share(shares, excluding="s") is None
    shares["b"] = LateShare(1, 0)
    assert flood.app_late_share(shares, excluding="s") == LateShare(100, 5)


# --- The exact tails ------------------------------------------------------------------------

def exact_binomial_tail(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1)),
               Fraction(0))


def exact_hypergeometric_tail(k: int, n: int, late: int, total: int) -> Fraction:
    return Fraction(sum(math.comb(late, j) * math.comb(total - late, n - j)
                        for j in range(k, min(n, late) + 1)), math.comb(total, n))


@pytest.mark.parametrize("n", [1, 2, 3, 12, 40, 300])
@pytest.mark.parametrize("p", [Fraction(6, 100), Fraction(1, 5), Fraction(857, 1000)])
def test_the_binomial_tail_is_exact(n, p):
    for k in sorted({0, 1, n // 20, n // 10, n // 4, n // 2, n - 1, n}):
        assert flood.binomial_tail(k, n, float(p)) == pytest.approx(
            float(exact_binomial_tail(k, n, p)), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("n", "late", "total"), [
    (12, 16, 112), (12, 0, 112), (12, 112, 112), (30, 45, 230), (100, 60, 300), (5, 3, 5)])
def test_fishers_tail_is_exact(n, late, total):
    for k in range(0, n + 2):
        assert flood.hypergeometric_tail(k, n, late, total) == pytest.approx(
            float(exact_hypergeometric_tail(k, n, late, total)), rel=1e-9, abs=1e-300)


def test_the_tails_are_exact_for_large_sources_too():
    # Terms past the 300th are below 1e-40 of the first: the reference sum stops there.
    exact = Fraction(sum(math.comb(10_000, j) * 6 ** j * 94 ** (10_000 - j)
                         for j in range(700, 1_000)), 100 ** 10_000)
    assert flood.binomial_tail(700, 10_000, 0.06) == pytest.approx(float(exact), rel=1e-9)
    assert flood.hypergeometric_tail(80, 1_000, 600, 10_000) == pytest.approx(
        float(exact_hypergeometric_tail(80, 1_000, 600, 10_000)), rel=1e-9)
    assert flood.binomial_tail(10, 100_000, 0.06) == 1.0
    assert flood.binomial_tail(20_000, 100_000, 0.06) == 0.0  # under the smallest float


# --- The false-positive bound ---------------------------------------------------------------

def pmf(k: int, n: int, p: float) -> float:
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


@pytest.mark.parametrize("clean_share", [0.04, 0.05, 0.06])
def test_clean_sources_of_any_size_are_flagged_at_most_alpha_of_the_time(clean_share):
    """Every sample a clean source of 1 to 200 installs can give, weighed by its probability:
    the share of them the late-share test flags is at most alpha for each size."""
    for n in range(1, 201):
        flagged = sum(pmf(k, n, clean_share) for k in range(n + 1)
                      if flood.late_p_value(LateShare(n, k), None) <= ALPHA)
        assert flagged <= ALPHA, n


@pytest.mark.parametrize(("n", "pool", "share"), [
    (12, 100, 0.15), (30, 100, 0.15), (100, 200, 0.15), (12, 200, 0.30), (100, 100, 0.30)])
def test_a_slow_apps_clean_sources_are_flagged_at_most_alpha_of_the_time(n, pool, share):
    """A source as slow as the app's other sources, both drawn afresh: the pool's own sampling
    error included, the flags stay under alpha (a plug-in of the pool's share would not)."""
    flagged = 0.0
    for pool_late in range(pool + 1):
        weight = pmf(pool_late, pool, share)
        if weight < 1e-16:
            continue
        flagged += weight * sum(
            pmf(k, n, share) for k in range(n + 1)
            if flood.late_p_value(LateShare(n, k), LateShare(pool, pool_late)) <= ALPHA)
    assert flagged <= ALPHA


def test_simulated_clean_sources_converting_poorly_are_flagged_under_alpha():
    """20,000 clean sources of 1 to 60 installs drawn with the published CTIT, each converting
    at a hundredth of the norm (so only the late-share test stands between it and a flag)."""
    rng = random.Random(24)
    draws = 20_000
    flagged = 0
    for _ in range(draws):
        ctits = clean_ctits(rng, rng.randint(1, 60))
        flagged += flood.judge(SourceSample("display", len(ctits) * 10_000, ctits),
                               norm=0.01).flooding
    assert flagged / draws < ALPHA
