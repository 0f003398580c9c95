"""Click-flood detection (the `click_flood` rule; docs/fraud.md, "Click flooding"): whether a
media source's click-to-install times (CTIT) and conversion rate look like click flooding, and
the CTIT histogram the fraud report shows. Pure: standard library only, no ORM, no clock.

Published patterns: a clean source's installs come soon after the click (about 75% within an
hour, 94-95% within 24 h); a flooding source sends clicks for devices it does not know will
install, spread evenly over the attribution window, and wins the installs that happen to fall
after one of them, so about 86% of its installs come more than 24 h after their click and it
converts about 0.02% of its clicks. A source is flooding over the look-back (beat's 7 days)
when both hold:
- long CTIT beyond chance: its count of installs more than 24 h after their click ("late") is
  one that clean traffic gives with a probability of at most `alpha` (0.001). Two one-sided
  exact tests, and both must reject: a binomial tail against the published clean share
  (`clean_share_after_day`, 6%), and, once the app's other sources have `min_app_installs`
  installs, Fisher's exact test against their pooled late share (an app whose users install
  slowly raises the bar for all its sources; the two-sample test counts the pool's own
  sampling error, which plugging its share in as if exact would not). A source no later than
  published clean traffic, or than the app's other sources where they are tested, is flagged
  with a probability of at most `alpha`, for a dozen installs as for a thousand: the evidence
  decides, not a minimum sample (3 installs, all late, are the smallest a flag can rest on;
  5 late of 12; 6 of 20).
- low conversion: installs per click at most `max_rate_vs_norm` of the app's norm, the median
  rate of its other sources that have `min_norm_clicks` clicks (`default_norm` when none has).
Neither test alone: a source whose users install late (a long consideration) converts normally,
and a poorly converting network still shows a clean CTIT. That network is the one kind of
clean source the conversion test lets through, and `alpha` bounds its false flags.

The density ratio (installs per hour of click age over 1-7 days against those over 1-24 h: a
uniform flood about 1.0, clean traffic about 0.04) is reported, no longer tested: it measures the
same long tail as the late share, and as a fixed bar on a dozen installs it turned on the one or
two that land in 1-24 h, a minimum sample in disguise with no error rate of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from math import exp, lgamma, log, log1p
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
LATE = len(BUCKETS) - 1  # the bucket of installs more than 24 h after their click


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
    """Documented defaults (docs/fraud.md, "Click flooding")."""

    # The false-flag rate per judgement of a clean source that converts poorly (the only clean
    # source the conversion test lets through). Beat judges every 10 minutes over a window that
    # barely moves between runs, so it is close to a rate per source-day (measured in
    # docs/fraud.md): 0.05 flagged such a network on one day in 30 to 70, 0.001 on under one in
    # a thousand at the published share, and 5 late installs of 12 still suffice.
    alpha: float = 0.001
    # Clean traffic: 94-95% of installs within 24 h of the click; the upper end of the late
    # share, so a clean source at the published figure is flagged at most `alpha` of the time.
    clean_share_after_day: float = 0.06
    # Below this, the other sources say little about the app's own traffic, and a single flood
    # among them can make up most of the pool.
    min_app_installs: int = 100
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
class LateShare:
    """Installs with a click time, and how many of them came more than 24 h after it."""

    installs: int
    late: int


@dataclass(frozen=True)
class Finding:
    media_source: str
    flooding: bool
    installs: int
    late_installs: int
    clicks: int
    conversion_rate: float | None
    norm: float
    share_after_day: float | None
    clean_share_after_day: float
    app_share_after_day: float | None  # the other sources' pooled share, when it was tested
    app_installs: int
    p_value: float  # the larger of the two tests' one-sided p-values
    alpha: float
    density_ratio: float | None
    histogram: tuple[int, ...]
    explanation: str

    def stats(self) -> dict:
        """What SourceFlag.stats keeps: the figures behind the verdict."""
        values = asdict(self)
        values["histogram"] = dict(zip((b.label for b in BUCKETS), self.histogram, strict=True))
        return values


# --- Exact tails -----------------------------------------------------------------------------
# Summed in log space: math.comb's integers times p**j overflow a float past a few hundred
# installs. Both distributions are log-concave, so once past the mode the terms only shrink and
# the sum stops when they no longer move it (under 1e-17 of the largest, however many remain).

_NEGLIGIBLE = -40.0  # e**-40 is about 4e-18


def _log_comb(n: int, k: int) -> float:
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)


def _sum_exp(log_terms: Iterator[float]) -> float:
    kept: list[float] = []
    top = float("-inf")
    for term in log_terms:
        if kept and term < kept[-1] and term < top + _NEGLIGIBLE:
            break
        kept.append(term)
        top = max(top, term)
    if not kept or top == float("-inf"):
        return 0.0
    return min(1.0, exp(top) * sum(exp(term - top) for term in kept))


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): the chance of k or more late installs of n when each
    is late with probability p."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = log(p), log1p(-p)
    return _sum_exp(_log_comb(n, j) + j * log_p + (n - j) * log_q for j in range(k, n + 1))


def hypergeometric_tail(k: int, n: int, late: int, total: int) -> float:
    """P(X >= k) when n installs are drawn without replacement from `total` of which `late`
    are late: Fisher's one-sided exact test that a source's n installs are no later than the
    pool they were drawn from (its own installs plus the app's other sources')."""
    fewest, most = max(0, n - (total - late)), min(n, late)
    if k > most:
        return 0.0
    if k <= fewest:
        return 1.0
    whole = _log_comb(total, n)
    return _sum_exp(_log_comb(late, j) + _log_comb(total - late, n - j) - whole
                    for j in range(k, most + 1))


def late_p_value(own: LateShare, app: LateShare | None, *,
                 thresholds: Thresholds = THRESHOLDS) -> float:
    """How likely clean traffic gives the source this many late installs or more: the larger of
    the binomial tail at the published clean share and, with an app baseline, Fisher's exact
    test against it. Small means strong evidence of a long CTIT."""
    p_value = binomial_tail(own.late, own.installs, thresholds.clean_share_after_day)
    if app is not None:
        p_value = max(p_value, hypergeometric_tail(own.late, own.installs,
                                                   own.late + app.late,
                                                   own.installs + app.installs))
    return p_value


# --- The app's baselines ---------------------------------------------------------------------

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


def late_shares(samples: Iterable[SourceSample]) -> dict[str, LateShare]:
    """Each source's installs and late installs."""
    return {s.media_source: LateShare(len(s.ctits), histogram(s.ctits)[LATE]) for s in samples}


def app_late_share(shares: Mapping[str, LateShare], *, excluding: str,
                   thresholds: Thresholds = THRESHOLDS) -> LateShare | None:
    """The app's other sources pooled, when they have enough installs to be a baseline. A
    flood among them only raises the bar, so it can hide another flood but never flag a clean
    source."""
    installs = sum(s.installs for source, s in shares.items() if source != excluding)
    late = sum(s.late for source, s in shares.items() if source != excluding)
    return LateShare(installs, late) if installs >= thresholds.min_app_installs else None


# --- The verdict -----------------------------------------------------------------------------

def judge(sample: SourceSample, *, norm: float, app: LateShare | None = None,
          thresholds: Thresholds = THRESHOLDS) -> Finding:
    """Whether one source floods, with the figures and a sentence saying why. `app` is the
    app's other sources pooled (app_late_share), None when they are too few to be a baseline."""
    counts = histogram(sample.ctits)
    own = LateShare(len(sample.ctits), counts[LATE])
    rate = own.installs / sample.clicks if sample.clicks else None
    share = own.late / own.installs if own.installs else None
    p_value = late_p_value(own, app, thresholds=thresholds)
    long_ctit = p_value <= thresholds.alpha
    # Installs can outnumber clicks (a network reporting few of them): never flooding.
    low = rate is not None and rate <= norm * thresholds.max_rate_vs_norm
    flooding = long_ctit and low
    app_share = app.late / app.installs if app is not None else None
    words = (f"{_late_words(own, p_value, app, thresholds)}; converts {_percent(rate)} of "
             f"{sample.clicks} clicks against an app norm of {_percent(norm)}")
    return Finding(
        media_source=sample.media_source, flooding=flooding, installs=own.installs,
        late_installs=own.late, clicks=sample.clicks, conversion_rate=rate, norm=norm,
        share_after_day=share, clean_share_after_day=thresholds.clean_share_after_day,
        app_share_after_day=app_share, app_installs=app.installs if app is not None else 0,
        p_value=p_value, alpha=thresholds.alpha, density_ratio=_density_ratio(counts),
        histogram=counts,
        explanation=f"{'flooding' if flooding else 'not flooding'}: {words}")


def flooding(samples: Iterable[SourceSample], *,
             thresholds: Thresholds = THRESHOLDS) -> list[Finding]:
    """Every source of one app judged against the others: their median conversion rate and
    their pooled late share."""
    samples = list(samples)
    rates = norm_rates(samples, thresholds=thresholds)
    shares = late_shares(samples)
    return [judge(sample,
                  norm=app_norm(rates, excluding=sample.media_source, thresholds=thresholds),
                  app=app_late_share(shares, excluding=sample.media_source,
                                     thresholds=thresholds),
                  thresholds=thresholds)
            for sample in samples]


def _density_ratio(counts: tuple[int, ...]) -> float | None:
    """Installs per hour of click age over 1-7 days / the same over 1-24 h; None when the
    1-24 h bucket is empty (no ratio to show)."""
    per_hour_day = counts[LATE - 1] / ((DAY - HOUR) / HOUR)
    per_hour_week = counts[LATE] / ((BUCKETS[LATE].to_seconds - DAY) / HOUR)
    return per_hour_week / per_hour_day if per_hour_day else None


def _late_words(own: LateShare, p_value: float, app: LateShare | None,
                thresholds: Thresholds) -> str:
    if not own.installs:
        return "no installs with a click time"
    against = f"clean traffic {_percent(thresholds.clean_share_after_day)}"
    if app is not None:
        against += (f", the app's other sources {_percent(app.late / app.installs)} of "
                    f"{app.installs}")
    return (f"{own.late} of {own.installs} installs more than 24 h after the click "
            f"({_percent(own.late / own.installs)}; {against}), which clean traffic gives "
            f"with a probability of {p_value:.2g} (a flag needs {thresholds.alpha:g} or less)")


def _percent(rate: float | None) -> str:
    return "an unknown share" if rate is None else f"{rate * 100:.3g}%"
