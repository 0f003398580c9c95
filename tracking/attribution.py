"""The install attribution waterfall (spec: POST /installs). Pure: no ORM, no clock.

First matching tier wins: install referrer (100), device id (95-100), fingerprint (60-80),
else organic. Only clicks from the 7-day window before the install take part; within a tier the
latest qualifying click wins, ties broken by the click id. The verdict carries a trail saying
why: the method, its score and factors, and every candidate considered with why it lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tracking import fingerprint
from tracking.referrer import ReferrerInfo
from tracking.signals import ClickCandidate, InstallSignals

WINDOW = timedelta(days=7)
ZERO_DEVICE_IDS = {"", "00000000-0000-0000-0000-000000000000", "0000-0000",
                   "00000000000000000000000000000000"}
MAX_TRAIL_CANDIDATES = 25

INSTALL_REFERRER, DEVICE_ID, FINGERPRINT, ORGANIC = (
    "install_referrer", "device_id", "fingerprint", "organic")


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

    @property
    def is_organic(self) -> bool:
        return self.match_type == ORGANIC


def usable_device_id(device_id: str | None) -> str | None:
    """None for absent or zeroed advertising ids (limit-ad-tracking devices send zeros)."""
    if device_id is None:
        return None
    cleaned = device_id.strip().lower()
    if cleaned in ZERO_DEVICE_IDS or set(cleaned) <= {"0", "-"}:
        return None
    return cleaned


def _latest_first(clicks: Sequence[ClickCandidate]) -> list[ClickCandidate]:
    return sorted(clicks, key=lambda c: (c.clicked_at, str(c.id)), reverse=True)


def _in_window(click: ClickCandidate, installed_at: datetime, window: timedelta) -> bool:
    return installed_at - window <= click.clicked_at <= installed_at


def _describe(click: ClickCandidate) -> dict:
    return {"click_id": str(click.id), "clicked_at": click.clicked_at.isoformat(),
            "media_source": click.media_source or None, "campaign_id": click.campaign_id or None}


def _from_click(match_type: str, confidence: float, click: ClickCandidate, trail: dict
                ) -> Verdict:
    return Verdict(match_type=match_type, confidence=confidence, click=click,
                   media_source=click.media_source or None,
                   campaign_id=click.campaign_id or None, adset=click.adset or None,
                   ad=click.ad or None, touch_time=click.clicked_at, trail=trail)


def attribute(*, installed_at: datetime, signals: InstallSignals,
              referrer: ReferrerInfo | None, referrer_click: ClickCandidate | None,
              device_candidates: Sequence[ClickCandidate],
              fingerprint_candidates: Sequence[ClickCandidate],
              window: timedelta = WINDOW) -> Verdict:
    steps: list[dict] = []
    losers: list[dict] = []
    trail = {"window_start": (installed_at - window).isoformat(), "steps": steps,
             "candidates": losers}

    # 1. Install referrer: deterministic, names the click or at least the source.
    if referrer is None:
        steps.append({"method": INSTALL_REFERRER, "outcome": "no usable referrer"})
    else:
        if referrer_click is not None and _in_window(referrer_click, installed_at, window):
            steps.append({"method": INSTALL_REFERRER, "outcome": "matched the click it names"})
            _record_losers(losers, [*device_candidates, *fingerprint_candidates],
                           referrer_click, "install referrer named another click")
            return _from_click(INSTALL_REFERRER, 100.0, referrer_click,
                               {**trail, "method": INSTALL_REFERRER, "score": 100,
                                "factors": {"referrer_click_id": str(referrer_click.id)},
                                "click": _describe(referrer_click)})
        if referrer.click_id is None and referrer.media_source:
            # A campaign link that did not pass through our redirector (utm parameters).
            steps.append({"method": INSTALL_REFERRER, "outcome": "named source and campaign"})
            _record_losers(losers, [*device_candidates, *fingerprint_candidates], None,
                           "install referrer named the source")
            return Verdict(match_type=INSTALL_REFERRER, confidence=100.0,
                           media_source=referrer.media_source,
                           campaign_id=referrer.campaign_id, adset=referrer.adset,
                           ad=referrer.ad, touch_time=None,
                           trail={**trail, "method": INSTALL_REFERRER, "score": 100,
                                  "factors": {"referrer_source": referrer.media_source}})
        # Our click id, but the click is gone or too old: the window rules, not the referrer.
        steps.append({"method": INSTALL_REFERRER,
                      "outcome": "named click is unknown or outside the window"})

    # 2. Device id: the latest click of this device in the window.
    device_id = usable_device_id(signals.device_id)
    in_window = [c for c in device_candidates if _in_window(c, installed_at, window)
                 and device_id is not None and usable_device_id(c.advertising_id) == device_id]
    for click in device_candidates:
        if click not in in_window:
            losers.append({**_describe(click), "method": DEVICE_ID,
                           "lost_because": "outside the 7-day window"})
    if device_id is None:
        steps.append({"method": DEVICE_ID, "outcome": "no usable device id"})
    elif not in_window:
        steps.append({"method": DEVICE_ID, "outcome": "no click with this device id"})
    else:
        chosen, *older = _latest_first(in_window)
        for click in older:
            losers.append({**_describe(click), "method": DEVICE_ID,
                           "lost_because": "a later click of the same device won"})
        _record_losers(losers, fingerprint_candidates, chosen, "device id matched first")
        confidence = 100.0
        factors = {"device_id": 100}
        if chosen.os_family and signals.os_family and chosen.os_family != signals.os_family:
            confidence, factors["os_contradiction"] = 95.0, -5
        steps.append({"method": DEVICE_ID, "outcome": "matched"})
        return _from_click(DEVICE_ID, confidence, chosen,
                           {**trail, "method": DEVICE_ID, "score": confidence,
                            "factors": factors, "click": _describe(chosen)})

    # 3. Fingerprint: scored, decayed, penalised when ambiguous; 60 or more qualifies.
    window_candidates = [c for c in fingerprint_candidates
                         if _in_window(c, installed_at, window)]
    ranked = fingerprint.rank(window_candidates, signals, installed_at=installed_at)
    qualifying = [s for s in ranked if s.confidence >= fingerprint.THRESHOLD]
    qualifying.sort(key=lambda s: (s.click.clicked_at, s.confidence, str(s.click.id)),
                    reverse=True)
    chosen_scored = qualifying[0] if qualifying else None
    for item in ranked:
        if chosen_scored is not None and item.click.id == chosen_scored.click.id:
            continue
        if item.score.disqualified:
            reason = item.score.disqualified
        elif item.ambiguity_penalty and item.score.confidence >= fingerprint.THRESHOLD:
            reason = "ambiguous: other devices on this network score alike"
        elif item.crowd_penalty and item.score.confidence >= fingerprint.THRESHOLD:
            reason = "crowded address: many devices clicked from it"
        elif item.confidence < fingerprint.THRESHOLD:
            reason = f"score {item.confidence} below {fingerprint.THRESHOLD:g}"
        else:
            reason = "a later qualifying click won"
        losers.append({**_describe(item.click), "method": FINGERPRINT,
                       "confidence": item.confidence, "factors": item.score.factors,
                       "penalties": {"crowd": item.crowd_penalty,
                                     "ambiguity": item.ambiguity_penalty},
                       "lost_because": reason})
    del losers[MAX_TRAIL_CANDIDATES:]
    if chosen_scored is not None:
        steps.append({"method": FINGERPRINT, "outcome": "matched"})
        click = chosen_scored.click
        return _from_click(FINGERPRINT, chosen_scored.confidence, click,
                           {**trail, "method": FINGERPRINT, "score": chosen_scored.confidence,
                            "factors": chosen_scored.score.factors,
                            "crowd_penalty": chosen_scored.crowd_penalty,
                            "ambiguity_penalty": chosen_scored.ambiguity_penalty,
                            "click": _describe(click)})
    steps.append({"method": FINGERPRINT, "outcome": "no click scored 60 or more"
                  if window_candidates else "no click from this network"})

    # 4. Organic.
    return Verdict(match_type=ORGANIC, confidence=0.0,
                   trail={**trail, "method": ORGANIC, "score": 0, "factors": {}})


def _record_losers(losers: list[dict], clicks: Sequence[ClickCandidate],
                   chosen: ClickCandidate | None, reason: str) -> None:
    for click in clicks[:MAX_TRAIL_CANDIDATES]:
        if chosen is None or click.id != chosen.id:
            losers.append({**_describe(click), "lost_because": reason})
