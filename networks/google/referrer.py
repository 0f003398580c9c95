"""Google Ads' click in a Play install referrer (docs/networks.md, "Google Ads"). Pure.

Google Ads app campaigns with auto-tagging put their click id in the Play Store's referrer:
`gclid` for a click, `gbraid` for an app-to-web or iOS-measured click (`wbraid` is web-only and
never reaches the Play Store). Either is Google's deterministic evidence that its ad sent the
user to the store, so the install is Google's at once; the campaign is filled in when Google's
App Conversion API answers the claim (networks/google/claims.py). A referrer that also names one
of our own clicks is ours (the own click id is the strongest evidence: the user went through our
redirector).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from tracking.referrer import decode
from tracking.waterfall_inputs import PlatformReferrer

MEDIA_SOURCE = "google"
ORIGIN = "play_referrer"
# Google's click ids are URL-safe base64 of some dozens of characters; anything longer is not
# one, and is not stored or sent on.
MAX_LENGTH = 512


@dataclass(frozen=True)
class GoogleClick:
    gclid: str | None
    gbraid: str | None

    @property
    def evidence(self) -> dict:
        return {"gclid": self.gclid} if self.gclid else {"gbraid": self.gbraid}


def google_click(raw: str | None) -> GoogleClick | None:
    """The Google Ads click a Play referrer carries, or None."""
    if not raw or not raw.strip():
        return None
    params = parse_qs(decode(raw)[:4096])
    gclid, gbraid = _value(params, "gclid"), _value(params, "gbraid")
    if gclid is None and gbraid is None:
        return None
    return GoogleClick(gclid=gclid, gbraid=None if gclid else gbraid)


def _value(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name)
    if not values:
        return None
    value = values[0].strip()
    if not value or len(value) > MAX_LENGTH or not value.isprintable():
        return None
    return value


def platform_referrers(raw: str | None, *, campaign_id: str | None
                       ) -> tuple[PlatformReferrer, ...]:
    """Google's click as the waterfall weighs a platform's referrer: a click-through whose time
    is unknown (the Play referrer is this install's store visit), after Meta's referrers, and
    the campaign the referrer names until Google's API names its own."""
    click = google_click(raw)
    if click is None:
        return ()
    return (PlatformReferrer(media_source=MEDIA_SOURCE, origin=ORIGIN, click=True,
                             touch_time=None, campaign_id=campaign_id,
                             metadata={"platform": MEDIA_SOURCE, "origin": ORIGIN,
                                       "touch": "click", "campaign": click.evidence}),)
