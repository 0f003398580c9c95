"""Requests of Meta's Graph API app events (docs/networks.md, "Sending conversions"), built from
plain values: `POST {origin}/v21.0/{app-id}/activities` with the integration's access token, the
install (`MOBILE_APP_INSTALL`) or one custom app event. Pure: no ORM, no settings, no clock.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from networks.conversion import META_INSTALL, Conversion, DeviceFacts

META_GRAPH_VERSION = "v21.0"
META_EVENTS = "CUSTOM_APP_EVENTS"


def app_event(*, origin: str, meta_app_id: str, access_token: str,
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

