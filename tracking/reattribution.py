"""When an install's attribution changes after the fact (docs/apple.md, "Apple Ads: a correction
after the waterfall"): whether Apple's attribution record replaces what the waterfall decided, and
the trail's words.

Pure: standard library only, no ORM, no clock.

Apple Ads sits beside the waterfall, not in it: its answer comes from Apple's server minutes
after the install, so the install is first attributed by the waterfall and then moved. Apple's
record is deterministic (Apple saw the ad tap in the App Store), so it beats what is only
probable (fingerprint) and organic. Against the other deterministic tiers (install referrer,
device id) the later touch wins, as within a tier of the waterfall: an App Store search ad
tapped after a network's click is what sent the user to the download. A deterministic match
whose touch time is unknown (a referrer naming only its source) keeps the install.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

APPLE_ADS = "apple_ads"  # the match type
APPLE_SEARCH_ADS = "apple_search_ads"  # the media source
PROBABLE_OR_NONE = frozenset({"fingerprint", "organic"})


@dataclass(frozen=True)
class Replacement:
    replaces: bool
    reason: str


def apple_ads_replaces(*, match_type: str, touch_time: datetime | None,
                       apple_touch_time: datetime | None) -> Replacement:
    """Whether Apple's record takes the install from its current attribution."""
    if match_type == APPLE_ADS:
        return Replacement(False, "already attributed to Apple Ads")
    if match_type in PROBABLE_OR_NONE:
        return Replacement(True, f"Apple's record is deterministic; {match_type} was not")
    if touch_time is None or apple_touch_time is None:
        return Replacement(False, f"{match_type} matched deterministically and the touch times "
                                  "cannot be compared")
    if apple_touch_time > touch_time:
        return Replacement(True, f"the Apple Ads tap came after the {match_type} click")
    return Replacement(False, f"the {match_type} click came after the Apple Ads tap")


def apple_ads_step(*, campaign_id: str, adset: str | None, ad: str | None,
                   reason: str, replaced: bool) -> dict:
    """The trail's step for Apple's answer, in the waterfall's {method, outcome} shape."""
    ids = f"campaign {campaign_id}, ad group {adset or '-'}, keyword or ad {ad or '-'}"
    verdict = "re-attributed" if replaced else "kept its attribution"
    return {"method": APPLE_ADS,
            "outcome": f"Apple Ads: the AdServices API attributed this install to {ids}; "
                       f"{verdict} ({reason})"}


# --- Google Ads (docs/networks.md, "Google Ads": where Google's claim sits) -----------------

GOOGLE_ADS = "google_ads"  # the match type
GOOGLE = "google"  # the media source
INSTALL_REFERRER = "install_referrer"
META = "meta"
VIEW_THROUGH = "view_through"


def google_ads_replaces(*, match_type: str, media_source: str | None,
                        click_id: object | None, touch_time: datetime | None,
                        google_touch_time: datetime | None) -> Replacement:
    """Whether Google's claim (its App Conversion API answered `attributed`) takes the install.

    Our own click id in the Play referrer and Meta's install referrer are evidence of the very
    click that opened the store, so they keep the install. Google's own click in the referrer
    (gclid) is the same claim: the answer fills in its campaign. A device-id click and Google's
    ad interaction: the later touch wins, and an unknown time keeps the install (Apple's rule).
    Fingerprint, a platform's view-through and organic give way, being probable, a view or
    nothing."""
    if match_type == GOOGLE_ADS:
        return Replacement(False, "already attributed to Google Ads")
    if match_type in PROBABLE_OR_NONE:
        return Replacement(True, f"Google's claim is deterministic; {match_type} was not")
    if match_type == VIEW_THROUGH:
        return Replacement(True, "a view-through counts only when no claim of a click "
                                 "qualifies")
    if media_source == META:
        return Replacement(False, "Meta's install referrer decided it")
    if match_type == INSTALL_REFERRER and click_id is not None:
        return Replacement(False, "the Play referrer names our own click")
    if match_type == INSTALL_REFERRER and media_source == GOOGLE:
        return Replacement(True, "the Play referrer carried Google's click; its campaign is "
                                 "filled in")
    if touch_time is None or google_touch_time is None:
        return Replacement(False, f"{match_type} matched deterministically and the touch times "
                                  "cannot be compared")
    if google_touch_time > touch_time:
        return Replacement(True, f"the Google Ads interaction came after the {match_type} click")
    return Replacement(False, f"the {match_type} click came after the Google Ads interaction")


def google_ads_step(*, campaign_id: str, campaign_name: str | None, adset: str | None,
                    network: str | None, reason: str, replaced: bool) -> dict:
    """The trail's step for Google's answer, in the waterfall's {method, outcome} shape."""
    name = f" ({campaign_name})" if campaign_name else ""
    ids = (f"campaign {campaign_id}{name}, ad group {adset or '-'}, "
           f"network {network or '-'}")
    verdict = "re-attributed" if replaced else "kept its attribution"
    return {"method": GOOGLE_ADS,
            "outcome": f"Google Ads: the App Conversion API attributed this install to {ids}; "
                       f"{verdict} ({reason})"}
