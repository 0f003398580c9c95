"""fraud/flood.py: the CTIT histogram and the click-flood test on synthetic sources (no
database). Clean sources follow the published figures (about 75% within an hour, 94-95% within
24 h); a flood spreads its clicks evenly over 7 days and converts about 0.02%."""

from __future__ import annotations

import random

import pytest

from fraud import flood
from fraud.flood import BUCKETS, SourceSample, Thresholds


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
    assert flooder.flooding and flooder.judged
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
    assert findings["slow_but_real"].judged and not findings["slow_but_real"].flooding
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


def test_too_few_installs_are_not_judged():
    rng = random.Random(6)
    finding = flood.judge(SourceSample("small", 100_000, flood_ctits(rng, 14)), norm=0.03)
    assert not finding.judged and not finding.flooding
    assert "fewer than 15" in finding.explanation


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
