"""The networks' referrers of an install, read before the waterfall (docs/networks.md, "Meta"):
Meta's encrypted campaign data, in the Play install referrer or in Meta's own install referrer,
decrypted with the app's key into plain `PlatformReferrer`s that tracking/attribution.py weighs.

The app's key comes from the integrations' per-process cache (networks/selectors.py), and is
asked for only when a referrer carries Meta's data: other installs cost nothing here.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from networks import selectors as integration_selectors
from networks.meta import referrer as meta_referrer
from tracking import attribution
from tracking.waterfall_inputs import PlatformReferrer

META = "meta"  # the media source, as the SKAdNetwork table already names Meta
PLAY_REFERRER, META_INSTALL_REFERRER = "play_referrer", "meta_install_referrer"


@dataclass(frozen=True)
class MetaInstallReferrer:
    """`meta_install_referrer` as POST /installs received it (validated)."""

    install_referrer: str
    is_ct: bool
    actual_timestamp: datetime


@dataclass(frozen=True)
class PlatformEvidence:
    referrers: tuple[PlatformReferrer, ...] = ()
    view_window: timedelta = attribution.VIEW_WINDOW
    # The Play referrer is Meta's: its utm_source names Meta's wrapper, not a campaign, and
    # Meta asks that it never be read as one.
    play_referrer_is_metas: bool = False


NONE = PlatformEvidence()


def platform_evidence(*, app_id: uuid.UUID, platform: str, install_referrer: str,
                      meta_install_referrer: MetaInstallReferrer | None) -> PlatformEvidence:
    """What Meta's referrers of this install say; NONE when it carries none."""
    if platform != "android":
        return NONE
    play = meta_referrer.find(install_referrer)
    meta = None
    if meta_install_referrer is not None:
        meta = meta_referrer.find(meta_install_referrer.install_referrer) or (
            meta_referrer.Unreadable("Meta's install referrer carries no encrypted data"))
    if play is None and meta is None:
        return NONE
    integration = integration_selectors.meta_of(app_id)
    key = integration.decryption_key if integration else None
    referrers = []
    if play is not None:
        referrers.append(_referrer(PLAY_REFERRER, play, key, click=True, touch_time=None))
    if meta is not None:
        referrers.append(_referrer(META_INSTALL_REFERRER, meta, key,
                                   click=meta_install_referrer.is_ct,
                                   touch_time=meta_install_referrer.actual_timestamp))
    view_window = (timedelta(hours=integration.view_window_hours) if integration
                   else attribution.VIEW_WINDOW)
    return PlatformEvidence(referrers=tuple(referrers), view_window=view_window,
                            play_referrer_is_metas=play is not None)


def _referrer(origin: str, found: meta_referrer.Ciphertext | meta_referrer.Unreadable,
              key: bytes | None, *, click: bool, touch_time: datetime | None
              ) -> PlatformReferrer:
    result = (found if isinstance(found, meta_referrer.Unreadable)
              else meta_referrer.decrypt(found, key))
    if isinstance(result, meta_referrer.Unreadable):
        return PlatformReferrer(media_source=META, origin=origin, click=click,
                                touch_time=touch_time, unreadable=result.reason)
    return PlatformReferrer(
        media_source=META, origin=origin, click=click, touch_time=touch_time,
        campaign_id=result.campaign_id, adset=result.adset, ad=result.ad,
        campaign_name=result.campaign_name,
        metadata={"platform": META, "origin": origin,
                  "touch": "click" if click else "view", "campaign": result.fields})
