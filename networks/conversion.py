"""Conversions sent back to Google Ads and Meta (docs/networks.md, "Sending conversions"): which
facts go to which platform under which name, what is frozen when they happen, and the request
each platform's API takes. Pure: standard library only, no ORM, no settings, no clock.

Per integration, `event_mapping` names the events that go (our event name -> the platform's).
Installs go to Meta as `MOBILE_APP_INSTALL`; to Google they go as the claim's `first_open`
(google_ads), never twice. Google takes a mapped event on its App Conversion API: a Google
event name (`in_app_purchase` with `value` and `currency_code`, ...) as that type, any other
as a `custom` event. Meta takes app events on its Graph API, `POST /{app-id}/activities`, with
the integration's access token. The user's consent at the fact decides whether it goes at all
(consent.sharing: only `full` sharing sends a conversion, which names the device); Google is
told the consent in its terms (`eea`, `ad_user_data`, `ad_personalization`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

GOOGLE_ADS, META = "google_ads", "meta"
PLATFORMS = (GOOGLE_ADS, META)
META_GRAPH_VERSION = "v21.0"
META_INSTALL = "MOBILE_APP_INSTALL"
META_EVENTS = "CUSTOM_APP_EVENTS"
META_PURCHASE = "fb_mobile_purchase"
GOOGLE_PURCHASE = "in_app_purchase"


@dataclass(frozen=True)
class Conversion:
    """What is frozen in a platform delivery's body when the fact happens."""

    platform: str
    platform_event: str  # the platform's name for it
    event_name: str | None  # ours; None for an install
    occurred_at: str  # ISO 8601
    install_id: str
    device_id: str | None
    value: str | None = None
    currency: str | None = None
    consent: dict | None = None  # {"eea", "ad_user_data", "ad_personalization"} or None

    def body(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_body(cls, body: str) -> Conversion:
        return cls(**json.loads(body))


def platform_event(mapping: dict[str, str], event_name: str) -> str | None:
    """The platform's name of one of our events, or None when it is not sent."""
    name = mapping.get(event_name)
    return name if isinstance(name, str) and name else None


def google_consent(consent: Any) -> dict | None:
    """A consent.consent_data.Consent in Google's terms; None when none was ever sent."""
    if consent is None:
        return None
    return {"eea": consent.gdpr_applies, "ad_user_data": consent.ad_user_data,
            "ad_personalization": consent.ad_personalization}


@dataclass(frozen=True)
class DeviceFacts:
    """What the install told us about the device (tracking's record of it)."""

    platform: str
    os_version: str
    sdk_version: str
    device_model: str
    language: str
    ip: str | None
    user_agent: str


def meta_request(*, origin: str, meta_app_id: str, access_token: str,
                 conversion: Conversion, device: DeviceFacts) -> tuple[str, dict[str, str],
                                                                      bytes]:
    """(url, headers, body) of Meta's app event: the install, or one custom app event."""
    ios = device.platform == "ios"
    body: dict[str, Any] = {
        "event": META_INSTALL if conversion.event_name is None else META_EVENTS,
        "advertiser_tracking_enabled": 1 if conversion.device_id else 0,
        "application_tracking_enabled": 1,
        # Meta's extended device information, in its documented order (version "a2"/"i2").
        "extinfo": ["i2" if ios else "a2", "", "", "", device.os_version,
                    device.device_model, device.language, "", "", 0, 0, "0", 0, 0, 0, ""],
        "access_token": access_token,
    }
    if conversion.device_id:
        body["advertiser_id"] = conversion.device_id
    else:
        body["anon_id"] = conversion.install_id
    if conversion.event_name is not None:
        event: dict[str, Any] = {"_eventName": conversion.platform_event,
                                 "_logTime": int(datetime.fromisoformat(
                                     conversion.occurred_at).timestamp())}
        if conversion.value is not None:
            event["_valueToSum"] = float(conversion.value)
        if conversion.currency:
            event["fb_currency"] = conversion.currency
        body["custom_events"] = [event]
    url = f"{origin}/{META_GRAPH_VERSION}/{meta_app_id}/activities"
    return url, {"Content-Type": "application/json"}, json.dumps(body).encode()

