"""Web visit attribution (docs/web.md, "Attribution"; issue 33, "Web attribution"). Pure:
standard library and the waterfall's plain values only, no ORM, no clock.

A web id's first visit is its install; what credits it, first rule that applies:
1. `attribution_click_id`, the click redirector's id in the landing URL, naming a click of
   this app in the window: that click (`click_id`, confidence 100);
2. `utm_source`: media source `utm_source`, campaign `utm_campaign` (`utm`, 100);
3. an ad network's click parameter: `gclid` -> google, `fbclid` -> meta, `ttclid` -> tiktok
   (`click_param`, 100), checked in that order;
4. else organic, keeping the referrer's host (unless it is the page's own).
A later visit with a paid source is a touch after the install: a re-engagement, which the
install path decides as it does for an app (tracking/services/reengagement.py).
The answer's verdict is the waterfall's `Verdict`, so a web install is stored, published and
explained (its trail) as every other install is.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from tracking.attribution import Verdict
from tracking.waterfall_inputs import ClickCandidate

CLICK_ID, UTM, CLICK_PARAM, ORGANIC = "click_id", "utm", "click_param", "organic"
CLICK_PARAMS = (("gclid", "google"), ("fbclid", "meta"), ("ttclid", "tiktok"))


@dataclass(frozen=True)
class VisitSignals:
    """What a visit's body says about where it came from (all optional but the URL)."""

    url: str
    referrer: str = ""
    attribution_click_id: str | None = None
    utm_source: str | None = None
    utm_campaign: str | None = None
    gclid: str | None = None
    fbclid: str | None = None
    ttclid: str | None = None


def click_id_of(signals: VisitSignals) -> uuid.UUID | None:
    """The click id the landing URL named, when it is a UUID (anything else names no click)."""
    try:
        return uuid.UUID(signals.attribution_click_id) if signals.attribution_click_id else None
    except ValueError:
        return None


def host_of(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def referrer_host(signals: VisitSignals) -> str | None:
    """The referring site's host; None without a referrer or when the page referred itself
    (a navigation within the site is no source)."""
    host = host_of(signals.referrer) if signals.referrer else None
    return None if host is None or host == host_of(signals.url) else host


def visit_verdict(signals: VisitSignals, *, click: ClickCandidate | None,
                  visited_at: datetime) -> Verdict:
    """The visit's credit: `click` is the app's click named by `attribution_click_id` (None
    when it names none, or one of another app or outside the window)."""
    named = click_id_of(signals)
    steps = [_step(CLICK_ID, "matched" if click else (
        "the named click is not one of this app's clicks of the window" if named
        else "no attribution_click_id"))]
    if click is not None:
        return Verdict(match_type=CLICK_ID, confidence=100.0, click=click,
                       media_source=click.media_source or None,
                       campaign_id=click.campaign_id or None, adset=click.adset or None,
                       ad=click.ad or None, touch_time=click.clicked_at,
                       trail=_trail(steps, CLICK_ID, signals, click=click))
    if signals.utm_source:
        steps.append(_step(UTM, "matched"))
        return Verdict(match_type=UTM, confidence=100.0, media_source=signals.utm_source,
                       campaign_id=signals.utm_campaign or None, touch_time=visited_at,
                       trail=_trail(steps, UTM, signals))
    steps.append(_step(UTM, "no utm_source"))
    for param, media_source in CLICK_PARAMS:
        if getattr(signals, param):
            steps.append(_step(CLICK_PARAM, f"{param} -> {media_source}"))
            return Verdict(match_type=CLICK_PARAM, confidence=100.0, media_source=media_source,
                           touch_time=visited_at,
                           trail=_trail(steps, CLICK_PARAM, signals, param=param))
    steps.append(_step(CLICK_PARAM, "no gclid, fbclid or ttclid"))
    return Verdict(match_type=ORGANIC, confidence=0.0, trail=_trail(steps, ORGANIC, signals))


def _step(method: str, outcome: str) -> dict:
    return {"method": method, "outcome": outcome}


def _trail(steps: list[dict], method: str, signals: VisitSignals, *,
           click: ClickCandidate | None = None, param: str | None = None) -> dict:
    """The install's decision trail, in the waterfall's shape (steps, method, evidence)."""
    trail = {"steps": steps, "candidates": [], "method": method,
             "score": 100 if method != ORGANIC else 0, "factors": {},
             "web": {"referrer_host": referrer_host(signals)}}
    if click is not None:
        trail["click"] = {"click_id": str(click.id), "clicked_at": click.clicked_at.isoformat(),
                          "media_source": click.media_source or None,
                          "campaign_id": click.campaign_id or None}
    if method == UTM:
        trail["factors"] = {"utm_source": signals.utm_source,
                            "utm_campaign": signals.utm_campaign}
    if param is not None:
        trail["factors"] = {param: True}
    return trail
