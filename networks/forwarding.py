"""What delivery needs to send conversions to Google Ads and Meta (docs/networks.md, "Sending
conversions"), handed to it at start (google_ads/apps.py): each app's platform accounts, read
from the integrations' per-process cache (the fan-out asks for every fact), and the request of
one conversion, built from the install's device facts when it is sent. Google's request is its
App Conversion API's (google_ads.protocol); Meta's is its Graph API's app event
(delivery.platforms). A Meta integration without an access token sends nothing: the token is
optional for attribution, required for conversions.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.conf import settings

from delivery import platforms
from delivery.platforms import Conversion, DeviceFacts
from delivery.services import PlatformAccount
from delivery.services.platforms import Built
from google_ads import protocol
from integrations import selectors as integrations
from outbox import http
from tracking import selectors as tracking_selectors

NO_INSTALL = "The install this conversion belongs to is gone; not sent."
NO_DEV_TOKEN = "GOOGLE_ADS_DEVELOPER_TOKEN is not set; not sent."


def accounts_of(app_id: uuid.UUID) -> list[PlatformAccount]:
    accounts = []
    google = integrations.google_ads_of(app_id)
    if google is not None:
        accounts.append(PlatformAccount(platforms.GOOGLE_ADS, google.link_id, None,
                                        google.event_mapping))
    meta = integrations.meta_of(app_id)
    if meta is not None and meta.access_token:
        accounts.append(PlatformAccount(platforms.META, meta.meta_app_id, meta.access_token,
                                        meta.event_mapping))
    return accounts


def request_for(account: PlatformAccount, conversion: Conversion) -> Built:
    device = _device(uuid.UUID(conversion.install_id))
    if account.platform == platforms.GOOGLE_ADS:
        return _google(account, conversion, device)
    url, headers, body = platforms.meta_request(
        origin=settings.META_GRAPH_API_URL, meta_app_id=account.account_id,
        access_token=account.access_token or "", conversion=conversion,
        device=device or DeviceFacts("", "", "", "", "", None, ""))
    return Built(http.OutboundRequest("POST", url, headers, body), url,
                 None if device else NO_INSTALL)


def _google(account: PlatformAccount, conversion: Conversion, device: DeviceFacts | None
            ) -> Built:
    consent = conversion.consent or {}
    facts = device or DeviceFacts("", "", "", "", "", None, "")
    request = protocol.conversion(
        origin=settings.GOOGLE_ADS_API_URL, dev_token=settings.GOOGLE_ADS_DEVELOPER_TOKEN,
        link_id=account.account_id, event_type=conversion.platform_event,
        at=datetime.fromisoformat(conversion.occurred_at), value=conversion.value,
        currency=conversion.currency, device=protocol.Device(
            platform=facts.platform, rdid=conversion.device_id, app_version=facts.sdk_version,
            os_version=facts.os_version, sdk_version=facts.sdk_version, ip=facts.ip,
            user_agent=facts.user_agent, eea=consent.get("eea"),
            ad_user_data=consent.get("ad_user_data"),
            ad_personalization=consent.get("ad_personalization")))
    problem = (NO_DEV_TOKEN if not settings.GOOGLE_ADS_DEVELOPER_TOKEN
               else None if device else NO_INSTALL)
    return Built(http.OutboundRequest("POST", request.url, request.headers, request.body),
                 protocol.masked(request.url, settings.GOOGLE_ADS_DEVELOPER_TOKEN), problem)


def _device(install_id: uuid.UUID) -> DeviceFacts | None:
    found = tracking_selectors.install_device(install_id=install_id)
    if found is None:
        return None
    return DeviceFacts(platform=found.platform, os_version=found.os_version,
                       sdk_version=found.sdk_version, device_model=found.device_model,
                       language=found.language, ip=found.ip, user_agent=found.user_agent)
