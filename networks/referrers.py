"""The ad networks' referrers of an install, read before the waterfall (docs/networks.md,
"Meta" and "Google Ads"): Meta's encrypted campaign data, in the Play install referrer or in
Meta's own install referrer, decrypted with the app's key, and Google Ads' click in the Play
referrer, as plain `PlatformReferrer`s that tracking/attribution.py weighs. Tracking calls
`platform_evidence` through the reader networks/apps.py registers (tracking.services
`platform_evidence_reader_register`), so tracking never imports networks.

The app's key comes from the integrations' per-process cache (networks/selectors.py), and is
asked for only when a referrer carries Meta's data: other installs cost nothing here.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from networks import selectors as integration_selectors
from networks.google import referrer as google_referrer
from networks.meta import referrer as meta_referrer
from tracking.referrer import ReferrerInfo
from tracking.waterfall_inputs import (
    NO_PLATFORM_EVIDENCE,
    MetaInstallReferrer,
    PlatformEvidence,
    PlatformReferrer,
)

META = "meta"  # the media source, as the SKAdNetwork table already names Meta
PLAY_REFERRER, META_INSTALL_REFERRER = "play_referrer", "meta_install_referrer"


def platform_evidence(*, app_id: uuid.UUID, platform: str, install_referrer: str,
                      meta_install_referrer: MetaInstallReferrer | None,
                      referrer: ReferrerInfo | None) -> PlatformEvidence:
    """What the networks' referrers of this install say: Meta's, then Google's click in the
    Play referrer (docs/networks.md, "Where each claim sits"), which takes the campaign our
    own referrer names (`referrer`, as tracking parsed it) until Google's API names its own."""
    if platform != "android":
        return NO_PLATFORM_EVIDENCE
    meta = _meta_evidence(app_id, install_referrer, meta_install_referrer)
    if meta.play_referrer_is_networks and referrer is not None and referrer.click_id is None:
        referrer = None  # Meta's own utm_source and utm_campaign name no campaign
    google = google_referrer.platform_referrers(
        install_referrer, campaign_id=referrer.campaign_id if referrer else None)
    if not google:
        return meta
    return PlatformEvidence(referrers=(*meta.referrers, *google), view_window=meta.view_window,
                            play_referrer_is_networks=True)


def _meta_evidence(app_id: uuid.UUID, install_referrer: str,
                   meta_install_referrer: MetaInstallReferrer | None) -> PlatformEvidence:
    play = meta_referrer.find(install_referrer)
    meta = None
    if meta_install_referrer is not None:
        meta = meta_referrer.find(meta_install_referrer.install_referrer) or (
            meta_referrer.Unreadable("Meta's install referrer carries no encrypted data"))
    if play is None and meta is None:
        return NO_PLATFORM_EVIDENCE
    integration = integration_selectors.meta_of(app_id)
    key = integration.decryption_key if integration else None
    referrers = []
    if play is not None:
        referrers.append(_referrer(PLAY_REFERRER, play, key, click=True, touch_time=None))
    if meta is not None:
        referrers.append(_referrer(META_INSTALL_REFERRER, meta, key,
                                   click=meta_install_referrer.is_ct,
                                   touch_time=meta_install_referrer.actual_timestamp))
    view_window = timedelta(hours=integration.view_window_hours) if integration else None
    return PlatformEvidence(referrers=tuple(referrers), view_window=view_window,
                            play_referrer_is_networks=play is not None)


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
