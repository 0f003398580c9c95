"""The attribution waterfall's inputs, as plain values: a stored click as a candidate, what an
install request says about its device, and what the ad networks' referrers of it say. Pure: the
lookups (tracking/sql.py) build them, the waterfall (tracking/attribution.py) and the
fingerprint scorer compare them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple


class ClickCandidate(NamedTuple):
    """A NamedTuple, not a dataclass: the install lookup makes a dozen per request, and a
    frozen dataclass takes ten times as long to build."""

    id: uuid.UUID
    clicked_at: datetime
    media_source: str
    campaign_id: str
    adset: str = ""
    ad: str = ""
    advertising_id: str | None = None
    ip: str | None = None
    fingerprint: str = ""  # hash of IP + User-Agent: one browser on one network
    os_family: str = ""
    os_version: str = ""
    device_model: str = ""
    accept_language: str = ""
    link_id: uuid.UUID | None = None  # the short link the click came through


@dataclass(frozen=True)
class InstallSignals:
    platform: str
    device_id: str | None = None
    ip: str | None = None
    os_family: str = ""
    os_version: str = ""
    device_model: str = ""
    language: str = ""
    att_status: str = ""  # iOS App Tracking Transparency as the SDK sent it; "" when it did not


@dataclass(frozen=True)
class PlatformReferrer:
    """A self-attributing platform's install referrer as the install service read it before
    the waterfall (Meta's: found in the Play referrer or Meta's own, decrypted with the app's
    key). `unreadable` says why one that is there cannot be used; then nothing else is set."""

    media_source: str
    origin: str  # which referrer: "play_referrer" or "meta_install_referrer"
    click: bool = True  # click-through; False: the ad was only viewed
    touch_time: datetime | None = None  # when the platform says the click or view happened
    campaign_id: str | None = None
    adset: str | None = None
    ad: str | None = None
    metadata: dict | None = None  # every id and name the platform gave
    campaign_name: str | None = None  # its name of `campaign_id`
    unreadable: str = ""


@dataclass(frozen=True)
class MetaInstallReferrer:
    """`meta_install_referrer` as POST /installs received it (validated)."""

    install_referrer: str
    is_ct: bool
    actual_timestamp: datetime


@dataclass(frozen=True)
class PlatformEvidence:
    """What the networks' referrers of an install say (networks/referrers.py reads them)."""

    referrers: tuple[PlatformReferrer, ...] = ()
    view_window: timedelta | None = None  # None: the waterfall's default view window
    # The Play referrer is a network's (Meta's wrapper, or Google's auto-tagged click): its
    # utm_source and utm_campaign name no campaign of ours, and Meta asks that it never be read
    # as one.
    play_referrer_is_networks: bool = False


NO_PLATFORM_EVIDENCE = PlatformEvidence()
