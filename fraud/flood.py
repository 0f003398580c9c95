"""Click-flood detection (the `click_flood` rule; docs/fraud.md, "Click flooding"): whether a
media source's click-to-install times (CTIT) and conversion rate look like click flooding, and
the CTIT histogram the fraud report shows. Pure: standard library only, no ORM, no clock.

Published patterns: a clean source's installs come soon after the click (about 75% within an
hour, 94-95% within 24 h); a flooding source sends clicks for devices it does not know will
install, spread evenly over the attribution window, and wins the installs that happen to fall
after one of them, so its CTIT is flat from hours to days and it converts about 0.02% of its
clicks. A source is flooding when both hold over the look-back (beat's 7 days):
- flat CTIT: more than `min_share_after_day` of its installs came more than 24 h after their
  click (clean about 5%, a flood over 7 days about 86%), and the installs per hour of click age
  over 1-7 days are at least `min_density_ratio` of those over 1-24 h (clean about 0.04, a
  uniform flood 1.0);
- low conversion: installs per click at most `max_rate_vs_norm` of the app's norm, the median
  rate of its other sources that have `min_norm_clicks` clicks (`default_norm` when none has).
Neither test alone: a source whose users install late (a long consideration) converts normally,
and a poorly converting network still shows a clean CTIT. Fewer than `min_installs` installs
with a known click time are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from statistics import median

HOUR = 3600
DAY = 24 * HOUR


@dataclass(frozen=True)
class Bucket:
    label: str
    from_seconds: int  # included
    to_seconds: int  # excluded


# The report's fixed buckets. A CTIT below zero (a click stamped after the install by a skewed
# clock) counts in the first, one of 7 days or more (a window set longer) in the last.
BUCKETS = (
    Bucket("0-10s", 0, 10),
    Bucket("10-60s", 10, 60),
    Bucket("1-10min", 60, 10 * 60),
    Bucket("10-60min", 10 * 60, HOUR),
    Bucket("1-24h", HOUR, DAY),
    Bucket("1-7d", DAY, 7 * DAY),
)


def bucket_index(ctit_seconds: float) -> int:
    for index, bucket in enumerate(BUCKETS):
        if ctit_seconds < bucket.to_seconds:
            return index
    return len(BUCKETS) - 1


def histogram(ctits: Iterable[float]) -> tuple[int, ...]:
    """Installs per bucket, in BUCKETS order."""
    counts = [0] * len(BUCKETS)
    for ctit in ctits:
        counts[bucket_index(ctit)] += 1
    return tuple(counts)


@dataclass(frozen=True)
class Thresholds:
    """Documented defaults (docs/fraud.md): far from the published clean figures on both tests,
    met by a flood however it is mixed with a third of real clicks."""

    min_installs: int = 15
    min_share_after_day: float = 0.40
    min_density_ratio: float = 0.30
    max_rate_vs_norm: float = 0.10
    min_norm_clicks: int = 500
    default_norm: float = 0.01


THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class SourceSample:
    """One source over the look-back: its clicks, and the CTIT of each install it won."""

    media_source: str
    clicks: int
    ctits: tuple[float, ...]


@dataclass(frozen=True)
class Finding:
    media_source: str
    flooding: bool
    judged: bool  # enough installs to judge
    installs: int
    clicks: int
    conversion_rate: float | None
    norm: float
    share_after_day: float | None
    density_ratio: float | None
    histogram: tuple[int, ...]
    explanation: str

    def stats(self) -> dict:
        """What SourceFlag.stats keeps: the figures behind the verdict."""
        values = asdict(self)
        values["histogram"] = dict(zip((b.label for b in BUCKETS), self.histogram, strict=True))
        return values


def norm_rates(samples: Iterable[SourceSample], *,
               thresholds: Thresholds = THRESHOLDS) -> dict[str, float]:
    """Each source's conversion rate, for the sources with enough clicks to count in a norm."""
    return {s.media_source: len(s.ctits) / s.clicks for s in samples
            if s.clicks >= thresholds.min_norm_clicks}


def app_norm(rates: Mapping[str, float], *, excluding: str,
             thresholds: Thresholds = THRESHOLDS) -> float:
    """The median rate of the app's other sources: a flood's own clicks never lower the bar it
    is measured against, and one other flooding source cannot move a median of several."""
    others = [rate for source, rate in rates.items() if source != excluding]
    return median(others) if others else thresholds.default_norm


def judge(sample: SourceSample, *, norm: float,
          thresholds: Thresholds = THRESHOLDS) -> Finding:
    """Whether one source floods, with the figures and a sentence saying why."""
    counts = histogram(sample.ctits)
    installs = len(sample.ctits)
    rate = installs / sample.clicks if sample.clicks else None
    if installs < thresholds.min_installs:
        return Finding(sample.media_source, False, False, installs, sample.clicks, rate, norm,
                       None, None, counts,
                       f"{installs} installs with a click time: fewer than "
                       f"{thresholds.min_installs}, not judged")
    late = counts[5]
    share_after_day = late / installs
    hours_day = (DAY - HOUR) / HOUR
    hours_week = (BUCKETS[5].to_seconds - DAY) / HOUR
    per_hour_day = counts[4] / hours_day
    per_hour_week = late / hours_week
    density_ratio = (per_hour_week / per_hour_day if per_hour_day
                     else (float("inf") if late else 0.0))
    flat = (share_after_day >= thresholds.min_share_after_day
            and density_ratio >= thresholds.min_density_ratio)
    # Installs can outnumber clicks (a network reporting few of them): never flooding.
    low = rate is not None and rate <= norm * thresholds.max_rate_vs_norm
    words = (f"{share_after_day:.0%} of {installs} installs more than 24 h after the click, "
             f"installs per hour of click age over 1-7 days {_ratio(density_ratio)} of those "
             f"over 1-24 h; converts {_percent(rate)} of {sample.clicks} clicks against an app "
             f"norm of {_percent(norm)}")
    verdict = "flooding" if flat and low else "not flooding"
    return Finding(sample.media_source, flat and low, True, installs, sample.clicks, rate, norm,
                   share_after_day, density_ratio if density_ratio != float("inf") else None,
                   counts, f"{verdict}: {words}")


def flooding(samples: Iterable[SourceSample], *,
             thresholds: Thresholds = THRESHOLDS) -> list[Finding]:
    """Every source of one app judged against the norm of the others."""
    samples = list(samples)
    rates = norm_rates(samples, thresholds=thresholds)
    return [judge(sample, norm=app_norm(rates, excluding=sample.media_source,
                                        thresholds=thresholds), thresholds=thresholds)
            for sample in samples]


def _percent(rate: float | None) -> str:
    return "an unknown share" if rate is None else f"{rate * 100:.3g}%"


def _ratio(value: float) -> str:
    return "infinitely many times" if value == float("inf") else f"{value:.2f} times"
