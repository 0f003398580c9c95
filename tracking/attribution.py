"""The install attribution waterfall and the re-engagement rule (spec: POST /installs). Pure: no
ORM, no clock.

First matching tier wins: install referrer (100), a platform's click in its own referrer
(Meta's, decrypted before the waterfall: 100), device id (95-100), fingerprint (60-80), a
platform's view (Meta's view-through, within its shorter view window), else organic. Only
clicks from the 7-day window before the install take part; within a tier the latest qualifying
click wins, ties broken by the click id. Each tier's decision is a function of
plain values (`referrer_match`, `device_match`, `fingerprint_match`); `attribute` runs them in
order and writes the trail: the method, its score and factors, and every candidate considered
with why it lost. A device that installed already re-engages through a later click
(`reengagement`). On iOS the fingerprint tier runs only with tracking consent unless the app's
policy says otherwise (`fingerprint_allowed`; docs/apple.md, "Consent-aware fingerprinting").
The rules in prose: docs/attribution.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from tracking import fingerprint
from tracking.referrer import ReferrerInfo
from tracking.waterfall_inputs import ClickCandidate, InstallSignals, PlatformReferrer

# Spec, Limits: "Click retention and attribution window". The one definition: the waterfall,
# re-engagement and click pruning read it, and so should anything else that means the window.
WINDOW = timedelta(days=7)
ZERO_DEVICE_IDS = {"", "00000000-0000-0000-0000-000000000000", "0000-0000",
                   "00000000000000000000000000000000"}
MAX_TRAIL_CANDIDATES = 25

INSTALL_REFERRER, DEVICE_ID, FINGERPRINT, ORGANIC = (
    "install_referrer", "device_id", "fingerprint", "organic")
VIEW_THROUGH = "view_through"  # a platform saw its ad viewed, not clicked (Meta's referrer)
PLATFORM_REFERRER = "platform_referrer"  # the trail's name of the platform referrers' steps
# Meta's default view-through window (docs/networks.md); each app's integration may change it.
VIEW_WINDOW = timedelta(hours=24)
PLATFORM_NAMES = {"meta": "Meta", "google": "Google Ads"}
# How each platform's referrer was read, as the trail says it: Meta's is decrypted with the
# app's key; Google's is its click id (gclid or gbraid) in the Play referrer, in clear.
PLATFORM_READ = {"meta": " (decrypted)", "google": " (its click id in the Play referrer)"}

# An app's iOS fingerprinting policy (App.ios_fingerprinting holds one of these). Apple's
# policy forbids fingerprinting (apps that do "may be rejected"), so by default no install whose
# user did not authorize tracking is fingerprinted; `always` is the owner's explicit choice.
IOS_FINGERPRINTING_WITH_CONSENT, IOS_FINGERPRINTING_ALWAYS = "never_without_consent", "always"
IOS_FINGERPRINTING_POLICIES = (IOS_FINGERPRINTING_WITH_CONSENT, IOS_FINGERPRINTING_ALWAYS)
ATT_AUTHORIZED = "authorized"
FINGERPRINT_SKIPPED = "fingerprint skipped: tracking not authorized"
ADDRESS_NEVER_COMPARED = "the install's address is never compared"
# A tier's outcome when it found clicks but a fraud rule refused every one of them: written by
# the fraud gate (tracking/fraud_gate.py) over the outcome the eligible clicks alone gave, which
# would say the tier found nothing.
REFERRER_CLICK_REFUSED = "named click refused by a fraud rule"
DEVICE_CLICKS_REFUSED = "every click of this device refused by a fraud rule"
NETWORK_CLICKS_REFUSED = "every click from this network refused by a fraud rule"


@dataclass(frozen=True)
class Verdict:
    match_type: str
    confidence: float
    click: ClickCandidate | None = None
    media_source: str | None = None
    campaign_id: str | None = None
    adset: str | None = None
    ad: str | None = None
    touch_time: datetime | None = None
    trail: dict = field(default_factory=dict)
    # What a platform's referrer said (every decrypted id and name), when one won.
    platform_metadata: dict | None = None
    campaign_name: str | None = None  # the platform's name of `campaign_id`, when it gave one

    @property
    def is_organic(self) -> bool:
        return self.match_type == ORGANIC


class Match(NamedTuple):
    """A tier's decision: the click that won (none when a referrer names only its source), how
    sure it is, and the evidence as the trail shows it (score, factors, penalties)."""

    method: str
    confidence: float
    evidence: dict
    click: ClickCandidate | None = None
    source: ReferrerInfo | None = None
    platform: PlatformReferrer | None = None


# The trail has always shown the constant scores as whole numbers (100, 0) and the computed
# ones as the confidence itself; stored trails keep one shape.
NO_MATCH = Match(ORGANIC, 0.0, {"score": 0, "factors": {}})


def usable_device_id(device_id: str | None) -> str | None:
    """None for absent or zeroed advertising ids (limit-ad-tracking devices send zeros)."""
    if device_id is None:
        return None
    cleaned = device_id.strip().lower()
    if cleaned in ZERO_DEVICE_IDS or set(cleaned) <= {"0", "-"}:
        return None
    return cleaned


def tracking_authorized(signals: InstallSignals) -> bool:
    """Whether the install may be tracked as Apple counts it. Only iOS asks (other platforms:
    always true). An SDK that sends no `att_status` (older than the field) is believed only when
    it sends a usable IDFA: iOS hands one out only after the user authorized tracking (and
    before iOS 14.5, only without limit-ad-tracking), so no status and no IDFA is not consent."""
    if signals.platform != "ios":
        return True
    if signals.att_status:
        return signals.att_status == ATT_AUTHORIZED
    return usable_device_id(signals.device_id) is not None


def fingerprint_allowed(signals: InstallSignals, *, ios_fingerprinting: str) -> bool:
    """Whether the fingerprint tier may run for this install under the app's policy; an unknown
    policy value reads as the default, the side Apple's policy is on."""
    return ios_fingerprinting == IOS_FINGERPRINTING_ALWAYS or tracking_authorized(signals)


def _recency(click: ClickCandidate) -> tuple[datetime, str]:
    return click.clicked_at, str(click.id)


def _latest_first(clicks: Sequence[ClickCandidate]) -> list[ClickCandidate]:
    return sorted(clicks, key=_recency, reverse=True)


def _in_window(click: ClickCandidate, installed_at: datetime, window: timedelta) -> bool:
    return installed_at - window <= click.clicked_at <= installed_at


# --- Decisions, tier by tier ----------------------------------------------------------------

def referrer_match(referrer: ReferrerInfo | None, referrer_click: ClickCandidate | None, *,
                   installed_at: datetime, window: timedelta = WINDOW) -> Match | None:
    """Tier 1, deterministic: the referrer names our click (in the window), or names a source
    without a click of ours."""
    if referrer is None:
        return None
    if referrer_click is not None and _in_window(referrer_click, installed_at, window):
        return Match(INSTALL_REFERRER, 100.0,
                     {"score": 100, "factors": {"referrer_click_id": str(referrer_click.id)}},
                     click=referrer_click)
    if referrer.click_id is None and referrer.media_source:
        # A campaign link that did not pass through our redirector (utm parameters).
        return Match(INSTALL_REFERRER, 100.0,
                     {"score": 100, "factors": {"referrer_source": referrer.media_source}},
                     source=referrer)
    # Our click id, but the click is gone or too old: the window rules, not the referrer.
    return None


def platform_click_match(referrers: Sequence[PlatformReferrer], *, installed_at: datetime,
                         window: timedelta = WINDOW) -> Match | None:
    """Tier 2: a platform's own referrer names a click of its ad. Meta's install referrer
    (which carries the click's time) before the Play referrer (which carries none: it is the
    store visit of this install); a click outside the window does not count."""
    usable = [r for r in referrers if r.click and not r.unreadable
              and _platform_in_window(r, installed_at, window)]
    if not usable:
        return None
    chosen = max(usable, key=lambda r: (r.touch_time is not None,
                                        r.touch_time or installed_at))
    return Match(INSTALL_REFERRER, 100.0, _platform_evidence(chosen), platform=chosen)


def platform_view_match(referrers: Sequence[PlatformReferrer], *, installed_at: datetime,
                        view_window: timedelta = VIEW_WINDOW) -> Match | None:
    """The last tier before organic: a platform saw its ad viewed within the view window. Run
    only when no click of any source qualified: a view is weaker evidence than any click."""
    usable = [r for r in referrers if not r.click and not r.unreadable
              and r.touch_time is not None
              and _platform_in_window(r, installed_at, view_window)]
    if not usable:
        return None
    chosen = max(usable, key=lambda r: r.touch_time)
    return Match(VIEW_THROUGH, 100.0, _platform_evidence(chosen), platform=chosen)


def _platform_evidence(referrer: PlatformReferrer) -> dict:
    return {"score": 100, "factors": {
        "platform_referrer": referrer.origin, "media_source": referrer.media_source,
        "campaign_id": referrer.campaign_id, "touch": "click" if referrer.click else "view"}}


def _platform_in_window(referrer: PlatformReferrer, installed_at: datetime,
                        window: timedelta) -> bool:
    # The Play referrer has no time of its own: it is this install's store visit.
    return referrer.touch_time is None or (
        installed_at - window <= referrer.touch_time <= installed_at)


def clicks_of_device(candidates: Sequence[ClickCandidate], device_id: str | None, *,
                  installed_at: datetime, window: timedelta = WINDOW) -> list[ClickCandidate]:
    """The candidates that are this device's clicks in the window (`device_id` is usable)."""
    if device_id is None:
        return []
    return [c for c in candidates if _in_window(c, installed_at, window)
            and usable_device_id(c.advertising_id) == device_id]


def device_match(clicks: Sequence[ClickCandidate], *, os_family: str) -> Match | None:
    """Tier 2: the device's latest click; 95 instead of 100 when the click's OS contradicts
    the install's platform (a shared or reset advertising id)."""
    if not clicks:
        return None
    chosen = max(clicks, key=_recency)
    if chosen.os_family and os_family and chosen.os_family != os_family:
        return Match(DEVICE_ID, 95.0, {"score": 95.0, "factors": {
            "device_id": 100, "os_contradiction": -5}}, click=chosen)
    return Match(DEVICE_ID, 100.0, {"score": 100.0, "factors": {"device_id": 100}},
                 click=chosen)


def fingerprint_match(ranked: Sequence[fingerprint.Scored]) -> Match | None:
    """Tier 3: among the clicks scoring at least the threshold after the penalties, the latest
    (then the surer)."""
    best = max((s for s in ranked if s.confidence >= fingerprint.THRESHOLD),
               key=lambda s: (s.click.clicked_at, s.confidence, str(s.click.id)), default=None)
    if best is None:
        return None
    return Match(FINGERPRINT, best.confidence, {
        "score": best.confidence, "factors": best.score.factors,
        "crowd_penalty": best.crowd_penalty, "ambiguity_penalty": best.ambiguity_penalty},
        click=best.click)


def reengagement(*, now: datetime, installed_at: datetime,
                 last_reengagement_click_at: datetime | None,
                 device_clicks: Sequence[ClickCandidate], window: timedelta = WINDOW
                 ) -> Verdict | None:
    """A device that installed already re-engages through its latest click after its last
    attribution (the install, or the click of its latest re-engagement) and within the window:
    a device id match at 100. None when it has no such click."""
    attributed_at = (max(installed_at, last_reengagement_click_at)
                     if last_reengagement_click_at else installed_at)
    since = max(attributed_at, now - window)
    clicks = [c for c in device_clicks if c.clicked_at > since]
    if not clicks:
        return None
    return _from_click(DEVICE_ID, 100.0, max(clicks, key=_recency))


# --- The waterfall and its trail ------------------------------------------------------------

def attribute(*, installed_at: datetime, signals: InstallSignals,
              referrer: ReferrerInfo | None, referrer_click: ClickCandidate | None,
              device_candidates: Sequence[ClickCandidate],
              fingerprint_candidates: Sequence[ClickCandidate],
              ios_fingerprinting: str = IOS_FINGERPRINTING_WITH_CONSENT,
              window: timedelta = WINDOW,
              platform_referrers: Sequence[PlatformReferrer] = (),
              view_window: timedelta = VIEW_WINDOW) -> Verdict:
    """First matching tier wins: referrer, a platform's click in its referrer, device id,
    fingerprint (when `fingerprint_allowed` under the app's `ios_fingerprinting` policy), a
    platform's view within `view_window`, else organic."""
    trail = _Trail(installed_at=installed_at, window=window)
    later = [*device_candidates, *fingerprint_candidates]
    match = (_referrer_tier(trail, referrer, referrer_click, later=later)
             or _platform_click_tier(trail, platform_referrers, later=later)
             or _device_tier(trail, signals, device_candidates, later=fingerprint_candidates))
    if match is None and not fingerprint_allowed(signals, ios_fingerprinting=ios_fingerprinting):
        _fingerprint_skipped(trail, signals, fingerprint_candidates)
    elif match is None:
        match = _fingerprint_tier(trail, signals, fingerprint_candidates)
    if match is None:
        match = _platform_view_tier(trail, platform_referrers, view_window=view_window)
    _platform_steps(trail, platform_referrers, match, view_window=view_window)
    return trail.verdict(match or NO_MATCH)


def _platform_click_tier(trail: _Trail, referrers: Sequence[PlatformReferrer], *,
                         later: Sequence[ClickCandidate]) -> Match | None:
    match = platform_click_match(referrers, installed_at=trail.installed_at,
                                 window=trail.window)
    if match is not None:
        trail.beaten(later, None, f"{_platform_name(match.platform)} install referrer "
                                  "named the click")
    return match


def _platform_view_tier(trail: _Trail, referrers: Sequence[PlatformReferrer], *,
                        view_window: timedelta) -> Match | None:
    return platform_view_match(referrers, installed_at=trail.installed_at,
                               view_window=view_window)


def _platform_steps(trail: _Trail, referrers: Sequence[PlatformReferrer], match: Match | None,
                    *, view_window: timedelta) -> None:
    """One step per platform referrer the install carried: used, or why not."""
    for referrer in referrers:
        base = f"{_platform_name(referrer)} install referrer"
        name = base + PLATFORM_READ.get(referrer.media_source, "")
        details = {"origin": referrer.origin}
        if referrer.unreadable:
            trail.step(PLATFORM_REFERRER, f"{base} not used: {referrer.unreadable}", **details)
            continue
        kind = "click-through" if referrer.click else "view-through"
        if match is not None and match.platform is referrer:
            outcome = f"{name}: {kind}, matched"
        elif referrer.click and not _platform_in_window(referrer, trail.installed_at,
                                                        trail.window):
            outcome = f"{name}: the click is outside the {trail.window.days}-day window"
        elif not referrer.click and (referrer.touch_time is None or not _platform_in_window(
                referrer, trail.installed_at, view_window)):
            hours = int(view_window.total_seconds() // 3600)
            outcome = f"{name}: the view is outside the {hours}-hour view window"
        elif match is not None and match.method == INSTALL_REFERRER and match.click:
            outcome = f"{name}: our own click id in the referrer won"
        elif not referrer.click and match is not None:
            outcome = (f"{name}: view-through counts only when no click "
                       f"qualifies; {match.method} matched a click")
        else:
            outcome = f"{name}: another referrer won"
        trail.step(PLATFORM_REFERRER, outcome, **details)


def _platform_name(referrer: PlatformReferrer) -> str:
    return PLATFORM_NAMES.get(referrer.media_source, referrer.media_source)


def _referrer_tier(trail: _Trail, referrer: ReferrerInfo | None,
                   referrer_click: ClickCandidate | None, *, later: Sequence[ClickCandidate]
                   ) -> Match | None:
    match = referrer_match(referrer, referrer_click, installed_at=trail.installed_at,
                           window=trail.window)
    if referrer is None:
        trail.step(INSTALL_REFERRER, "no usable referrer")
    elif match is None:
        trail.step(INSTALL_REFERRER, "named click is unknown or outside the window")
    elif match.click is not None:
        trail.step(INSTALL_REFERRER, "matched the click it names")
        trail.beaten(later, match.click, "install referrer named another click")
    else:
        trail.step(INSTALL_REFERRER, "named source and campaign")
        trail.beaten(later, None, "install referrer named the source")
    return match


def _device_tier(trail: _Trail, signals: InstallSignals,
                 candidates: Sequence[ClickCandidate], *, later: Sequence[ClickCandidate]
                 ) -> Match | None:
    device_id = usable_device_id(signals.device_id)
    own = clicks_of_device(candidates, device_id, installed_at=trail.installed_at,
                        window=trail.window)
    match = device_match(own, os_family=signals.os_family)
    for click in candidates:
        if click not in own:
            trail.lost(click, "outside the 7-day window", method=DEVICE_ID)
    if device_id is None:
        trail.step(DEVICE_ID, "no usable device id")
    elif match is None:
        trail.step(DEVICE_ID, "no click with this device id")
    else:
        for click in _latest_first(own)[1:]:
            trail.lost(click, "a later click of the same device won", method=DEVICE_ID)
        trail.beaten(later, match.click, "device id matched first")
        trail.step(DEVICE_ID, "matched")
    return match


def _fingerprint_tier(trail: _Trail, signals: InstallSignals,
                      candidates: Sequence[ClickCandidate]) -> Match | None:
    if fingerprint.scoring_address(signals.ip) is None:
        # Loopback, private or carrier NAT: no click is looked up for it, so "no click from this
        # network" would mislead (a test on one machine has all its clicks from 127.0.0.1).
        trail.step(FINGERPRINT, ADDRESS_NEVER_COMPARED)
        return None
    scoring = [c for c in candidates if _in_window(c, trail.installed_at, trail.window)]
    ranked = fingerprint.rank(scoring, signals, installed_at=trail.installed_at)
    match = fingerprint_match(ranked)
    for item in ranked:
        if match is None or item.click.id != match.click.id:
            trail.lost(item.click, _why_fingerprint_lost(item), method=FINGERPRINT,
                       confidence=item.confidence, factors=item.score.factors,
                       penalties={"crowd": item.crowd_penalty,
                                  "ambiguity": item.ambiguity_penalty})
    trail.cap()
    if match is not None:
        trail.step(FINGERPRINT, "matched")
    else:
        trail.step(FINGERPRINT, "no click scored 60 or more" if scoring
                   else "no click from this network")
    return match


def _fingerprint_skipped(trail: _Trail, signals: InstallSignals,
                         candidates: Sequence[ClickCandidate]) -> None:
    """The tier did not run: its candidates were neither scored nor listed (nothing of them was
    compared), only counted, so the owner sees what the policy may have cost this install."""
    in_window = sum(_in_window(c, trail.installed_at, trail.window) for c in candidates)
    trail.step(FINGERPRINT, FINGERPRINT_SKIPPED, att_status=signals.att_status or None,
               network_clicks=in_window)


def _why_fingerprint_lost(item: fingerprint.Scored) -> str:
    if item.score.disqualified:
        return item.score.disqualified
    if item.ambiguity_penalty and item.score.confidence >= fingerprint.THRESHOLD:
        return "ambiguous: other devices on this network score alike"
    if item.crowd_penalty and item.score.confidence >= fingerprint.THRESHOLD:
        return "crowded address: many devices clicked from it"
    if item.confidence < fingerprint.THRESHOLD:
        return f"score {item.confidence} below {fingerprint.THRESHOLD:g}"
    return "a later qualifying click won"


class _Trail:
    """The decision trail as it is stored on the install: the window, what each tier found
    (`steps`), the candidates that lost and why, then the winning method and its evidence."""

    def __init__(self, *, installed_at: datetime, window: timedelta):
        self.installed_at, self.window = installed_at, window
        self.steps: list[dict] = []
        self.losers: list[dict] = []

    def step(self, method: str, outcome: str, **details) -> None:
        self.steps.append({"method": method, "outcome": outcome, **details})

    def lost(self, click: ClickCandidate, reason: str, **details) -> None:
        self.losers.append({**_describe(click), **details, "lost_because": reason})

    def beaten(self, clicks: Sequence[ClickCandidate], winner: ClickCandidate | None,
               reason: str) -> None:
        """The candidates of tiers the match made unnecessary (at most MAX_TRAIL_CANDIDATES)."""
        for click in clicks[:MAX_TRAIL_CANDIDATES]:
            if winner is None or click.id != winner.id:
                self.losers.append({**_describe(click), "lost_because": reason})

    def cap(self) -> None:
        del self.losers[MAX_TRAIL_CANDIDATES:]

    def verdict(self, match: Match) -> Verdict:
        trail = {"window_start": (self.installed_at - self.window).isoformat(),
                 "steps": self.steps, "candidates": self.losers, "method": match.method,
                 **match.evidence}
        if match.click is not None:
            return _from_click(match.method, match.confidence, match.click,
                               {**trail, "click": _describe(match.click)})
        if match.platform is not None:
            platform = match.platform
            return Verdict(match_type=match.method, confidence=match.confidence,
                           media_source=platform.media_source,
                           campaign_id=platform.campaign_id, adset=platform.adset,
                           ad=platform.ad, touch_time=platform.touch_time, trail=trail,
                           platform_metadata=platform.metadata,
                           campaign_name=platform.campaign_name)
        source = match.source
        if source is None:
            return Verdict(match_type=match.method, confidence=match.confidence, trail=trail)
        return Verdict(match_type=match.method, confidence=match.confidence,
                       media_source=source.media_source, campaign_id=source.campaign_id,
                       adset=source.adset, ad=source.ad, trail=trail)


def _describe(click: ClickCandidate) -> dict:
    return {"click_id": str(click.id), "clicked_at": click.clicked_at.isoformat(),
            "media_source": click.media_source or None, "campaign_id": click.campaign_id or None}


def _from_click(match_type: str, confidence: float, click: ClickCandidate,
                trail: dict | None = None) -> Verdict:
    return Verdict(match_type=match_type, confidence=confidence, click=click,
                   media_source=click.media_source or None,
                   campaign_id=click.campaign_id or None, adset=click.adset or None,
                   ad=click.ad or None, touch_time=click.clicked_at, trail=trail or {})
