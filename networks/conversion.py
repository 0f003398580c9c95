"""Conversions sent back to Google Ads and Meta (docs/networks.md, "Sending conversions"): which
facts go to which platform under which name and what is frozen when they happen; each
platform's request is its protocol's (networks/google/protocol.py, networks/meta/protocol.py).
Pure: standard library only, no ORM, no settings, no clock.

Per integration, `event_mapping` names the events that go (our event name -> the platform's).
Installs go to Meta as `MOBILE_APP_INSTALL`; to Google they go as the claim's `first_open`
(networks/google/claims.py), never twice. Google takes a mapped event on its App Conversion
API: a Google event name (`in_app_purchase` with `value` and `currency_code`, ...) as that
type, any other as a `custom` event. Meta takes app events on its Graph API (`POST
/{app-id}/activities`) with the integration's access token. The user's consent at the fact
decides whether it goes at all (consent.sharing: only `full` sharing sends a conversion,
which names the device); Google is told the consent in its terms (`eea`, `ad_user_data`,
`ad_personalization`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

# The platforms, named as delivery's kinds name the rows that carry their conversions.
GOOGLE_ADS, META = "google_ads", "meta"
# What an install is called at Meta (Google hears of it as the claim's first_open).
META_INSTALL = "MOBILE_APP_INSTALL"


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

    def with_consent(self, consent: Any) -> Conversion:
        """The conversion with the user's consent at the fact (a consent.consent_data.Consent
        or None), in the terms Google asks for."""
        return replace(self, consent=consent_terms(consent))

    def body(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_body(cls, body: str) -> Conversion:
        return cls(**json.loads(body))


@dataclass(frozen=True)
class Account:
    """One platform an app sends conversions to."""

    platform: str  # GOOGLE_ADS or META
    account_id: str  # Google's link id, or Meta's app id
    access_token: str | None  # Meta's; Google's developer token is the operator's setting
    event_mapping: dict[str, str]


def conversion_of(event: Any, account: Account, *, new_installs: bool) -> Conversion | None:
    """What `account` hears of a fact (tracking's InstallAttributed or EventTracked), before
    the consent is known; None when it hears nothing of it."""
    if new_installs:
        if account.platform != META:
            return None  # Google hears of an install as its claim's first_open
        theirs, ours = META_INSTALL, None
    else:
        if event.install_id is None:
            return None  # not linked to an install yet: no device to name
        if account.platform == GOOGLE_ADS and not event.device_id:
            return None  # Google identifies the user by the advertising id alone
        theirs, ours = platform_event(account.event_mapping, event.event_name), event.event_name
        if theirs is None:
            return None
    return Conversion(
        platform=account.platform, platform_event=theirs, event_name=ours,
        occurred_at=(event.installed_at if new_installs else event.occurred_at).isoformat(),
        install_id=str(event.install_id), device_id=event.device_id,
        value=None if new_installs or event.revenue_amount is None
        else format(event.revenue_amount.normalize(), "f"),
        currency=None if new_installs else event.revenue_currency)


def platform_event(mapping: dict[str, str], event_name: str) -> str | None:
    """The platform's name of one of our events, or None when it is not sent."""
    name = mapping.get(event_name)
    return name if isinstance(name, str) and name else None


def consent_terms(consent: Any) -> dict | None:
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


NO_DEVICE = DeviceFacts("", "", "", "", "", None, "")
