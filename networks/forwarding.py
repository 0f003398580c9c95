"""Conversions sent to Google Ads and Meta (docs/networks.md, "Sending conversions"), as delivery
carries them: delivery asks `conversions_for` which of a batch of facts the app's platforms hear
of (written as deliveries of kind `google_ads` or `meta` in the facts' own statement, with the
consent delivery reads), then `request_for` the request of one when it is sent. The accounts
come from the integrations' per-process cache (the fan-out asks for every fact); the request is
built from the install's device facts when it is sent: Google's App Conversion API's
(networks/google/protocol.py), Meta's Graph API app event (networks/meta/protocol.py). A Meta
integration without an access token sends nothing: the token is optional for attribution,
required for conversions.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings

from networks import selectors
from networks.conversion import (
    GOOGLE_ADS,
    META,
    NO_DEVICE,
    Account,
    Conversion,
    DeviceFacts,
    conversion_of,
)
from networks.google import protocol as google_protocol
from networks.meta import protocol as meta_protocol
from outbox import http
from tracking import selectors as tracking_selectors

NO_INSTALL = "The install this conversion belongs to is gone; not sent."
NO_DEV_TOKEN = "GOOGLE_ADS_DEVELOPER_TOKEN is not set; not sent."


@dataclass(frozen=True)
class Built:
    request: http.OutboundRequest
    logged_url: str  # secrets masked
    problem: str | None = None  # why it cannot be sent at all


def accounts_of(app_id: uuid.UUID) -> list[Account]:
    accounts = []
    google = selectors.google_ads_of(app_id)
    if google is not None:
        accounts.append(Account(GOOGLE_ADS, google.link_id, None, google.event_mapping))
    meta = selectors.meta_of(app_id)
    if meta is not None and meta.access_token:
        accounts.append(Account(META, meta.meta_app_id, meta.access_token, meta.event_mapping))
    return accounts


def conversions_for(events: Sequence[Any], *, new_installs: bool
                    ) -> list[tuple[Any, Conversion]]:
    """Each (fact, conversion) a platform of the fact's app hears of, consent not yet added
    (InstallAttributed: Meta hears of every new install; EventTracked: each mapped event of a
    known install, to each platform mapping it)."""
    wanted = []
    accounts: dict[uuid.UUID, list[Account]] = {}  # a batch is one app's, mostly
    for event in events:
        if event.app_id not in accounts:
            accounts[event.app_id] = accounts_of(event.app_id)
        for account in accounts[event.app_id]:
            conversion = conversion_of(event, account, new_installs=new_installs)
            if conversion is not None:
                wanted.append((event, conversion))
    return wanted


def request_for(*, app_id: uuid.UUID, body: str) -> Built | None:
    """The request of one conversion (a delivery's frozen body), the URL the log shows, and a
    problem that keeps it from being sent; None when the app no longer has the platform's
    integration (the delivery is cancelled)."""
    conversion = Conversion.from_body(body)
    account = next((a for a in accounts_of(app_id) if a.platform == conversion.platform), None)
    if account is None:
        return None
    device = _device(uuid.UUID(conversion.install_id))
    if account.platform == GOOGLE_ADS:
        return _google(account, conversion, device)
    url, headers, request_body = meta_protocol.app_event(
        origin=settings.META_GRAPH_API_URL, meta_app_id=account.account_id,
        access_token=account.access_token or "", conversion=conversion,
        device=device or NO_DEVICE)
    return Built(http.OutboundRequest("POST", url, headers, request_body), url,
                 None if device else NO_INSTALL)


def _google(account: Account, conversion: Conversion, device: DeviceFacts | None) -> Built:
    consent = conversion.consent or {}
    facts = device or NO_DEVICE
    request = google_protocol.conversion(
        origin=settings.GOOGLE_ADS_API_URL, dev_token=settings.GOOGLE_ADS_DEVELOPER_TOKEN,
        link_id=account.account_id, event_type=conversion.platform_event,
        at=datetime.fromisoformat(conversion.occurred_at), value=conversion.value,
        currency=conversion.currency, device=google_protocol.Device(
            platform=facts.platform, rdid=conversion.device_id, app_version=facts.sdk_version,
            os_version=facts.os_version, sdk_version=facts.sdk_version, ip=facts.ip,
            user_agent=facts.user_agent, eea=consent.get("eea"),
            ad_user_data=consent.get("ad_user_data"),
            ad_personalization=consent.get("ad_personalization")))
    problem = (NO_DEV_TOKEN if not settings.GOOGLE_ADS_DEVELOPER_TOKEN
               else None if device else NO_INSTALL)
    return Built(http.OutboundRequest("POST", request.url, request.headers, request.body),
                 google_protocol.masked(request.url, settings.GOOGLE_ADS_DEVELOPER_TOKEN),
                 problem)


def _device(install_id: uuid.UUID) -> DeviceFacts | None:
    found = tracking_selectors.install_device(install_id=install_id)
    if found is None:
        return None
    return DeviceFacts(platform=found.platform, os_version=found.os_version,
                       sdk_version=found.sdk_version, device_model=found.device_model,
                       language=found.language, ip=found.ip, user_agent=found.user_agent)
