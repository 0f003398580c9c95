"""Requests of Google's App Conversion Tracking and Remarketing API (docs/networks.md, "Google
Ads"), built from plain values. Pure: no ORM, no settings, no clock.

A conversion is an HTTPS POST to `{origin}/pagead/conversion/app/1.0` whose query carries the
developer token (`dev_token`, the operator's), the app's `link_id`, `app_event_type`
(`first_open`, `in_app_purchase`, `custom` with `app_event_name`), the device (`rdid`, `id_type`
advertisingid or idfa, `lat`), `app_version`, `os_version`, `sdk_version` and `timestamp`
(seconds with microseconds); the headers carry the device's User-Agent and its address
(`X-Forwarded-For`). A Play referrer's Google click goes as `market_referrer_gclid` (or
`gbraid`). The consent Google asks of EEA users goes as `eea`, `ad_user_data` and
`ad_personalization` (1 or 0; absent when no consent was ever sent). The cross-network answer is
the same request on `.../1.0/cross_network` with `ad_event_id` and `attributed` (1: we credited
Google, 0: another source won).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote_plus, urlencode

CONVERSION_PATH = "/pagead/conversion/app/1.0"
CROSS_NETWORK_PATH = "/pagead/conversion/app/1.0/cross_network"
ID_TYPES = {"android": "advertisingid", "ios": "idfa"}
FIRST_OPEN, IN_APP_PURCHASE, CUSTOM = "first_open", "in_app_purchase", "custom"
# Google's own names for app events; any other mapped name goes as a custom event.
STANDARD_EVENTS = frozenset({
    FIRST_OPEN, "session_start", IN_APP_PURCHASE, "view_item_list", "view_item",
    "view_search_results", "add_to_cart", "ecommerce_purchase"})
PRODUCT = "attribution-service"
PRODUCT_VERSION = "1.0"


@dataclass(frozen=True)
class Device:
    """What Google is told about the device and the app on it."""

    platform: str
    rdid: str | None  # the advertising id; None when the device gives none (lat=1)
    app_version: str
    os_version: str
    sdk_version: str
    ip: str | None
    user_agent: str
    gclid: str | None = None
    gbraid: str | None = None
    # Google's consent signals: None when the user never sent consent.
    eea: bool | None = None
    ad_user_data: bool | None = None
    ad_personalization: bool | None = None


@dataclass(frozen=True)
class Request:
    url: str
    headers: dict[str, str]
    body: bytes


def conversion(*, origin: str, dev_token: str, link_id: str, device: Device,
               event_type: str, at: datetime, event_name: str | None = None,
               value: str | None = None, currency: str | None = None) -> Request:
    """One app event. `event_type` is a Google name; any other is sent as `custom` named
    `event_type` (or `event_name`)."""
    params = _device_params(dev_token=dev_token, link_id=link_id, device=device, at=at)
    if event_type in STANDARD_EVENTS:
        params["app_event_type"] = event_type
    else:
        params["app_event_type"] = CUSTOM
        params["app_event_name"] = event_name or event_type
    if value is not None:
        params["value"] = value
    if currency:
        params["currency_code"] = currency
    return _post(origin + CONVERSION_PATH, params, device)


def cross_network(*, origin: str, dev_token: str, link_id: str, device: Device,
                  at: datetime, ad_event_id: str, credited: bool) -> Request:
    """Whether the install Google claimed was credited to Google here."""
    params = _device_params(dev_token=dev_token, link_id=link_id, device=device, at=at)
    params.update(app_event_type=FIRST_OPEN, ad_event_id=ad_event_id,
                  attributed="1" if credited else "0")
    return _post(origin + CROSS_NETWORK_PATH, params, device)


def _device_params(*, dev_token: str, link_id: str, device: Device, at: datetime) -> dict:
    params = {"dev_token": dev_token, "link_id": link_id}
    if device.rdid:
        params.update(rdid=device.rdid, id_type=ID_TYPES.get(device.platform, "advertisingid"),
                      lat="0")
    else:
        params["lat"] = "1"
    params.update(app_version=device.app_version or device.sdk_version or "0",
                  os_version=device.os_version or "0", sdk_version=device.sdk_version or "0",
                  timestamp=f"{at.timestamp():.6f}")
    if device.gclid:
        params["market_referrer_gclid"] = device.gclid
    elif device.gbraid:
        params["gbraid"] = device.gbraid
    if device.eea is not None:
        params["eea"] = _flag(device.eea)
        params["ad_user_data"] = _flag(bool(device.ad_user_data))
        params["ad_personalization"] = _flag(bool(device.ad_personalization))
    return params


def _flag(value: bool) -> str:
    return "1" if value else "0"


def _post(url: str, params: dict, device: Device) -> Request:
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "User-Agent": device.user_agent or app_user_agent(device)}
    if device.ip:
        headers["X-Forwarded-For"] = device.ip
    return Request(f"{url}?{urlencode(params)}", headers, b"{}")


def app_user_agent(device: Device) -> str:
    """Google's app User-Agent shape, `name version (os_and_version; ...)`, when the install
    sent none."""
    system = "iOS" if device.platform == "ios" else "Android"
    return f"{PRODUCT} {PRODUCT_VERSION} ({system} {device.os_version or '0'})"


def masked(url: str, dev_token: str) -> str:
    """The URL as logs show it: the developer token is the operator's secret."""
    return url.replace(f"dev_token={quote_plus(dev_token)}", "dev_token=***") if dev_token else url
