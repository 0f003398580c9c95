"""Meta's Graph API app event, built from plain values: no database."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from networks.conversion import Conversion, DeviceFacts
from networks.meta import protocol

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def test_metas_app_event_names_the_app_event_and_device():
    conversion = Conversion(
        platform="meta", platform_event="fb_mobile_purchase", event_name="purchase",
        occurred_at=NOW.isoformat(), install_id=str(uuid.uuid4()), device_id=None,
        value="4.99", currency="EUR")
    url, headers, body = protocol.app_event(
        origin="https://graph.facebook.com", meta_app_id="42", access_token="tok",
        conversion=conversion, device=DeviceFacts(
            "android", "14", "3.1.0", "Pixel 8", "en_US", None, ""))
    sent = json.loads(body)
    assert url == "https://graph.facebook.com/v21.0/42/activities"
    assert sent["event"] == "CUSTOM_APP_EVENTS" and sent["anon_id"] == conversion.install_id
    assert sent["advertiser_tracking_enabled"] == 0 and sent["extinfo"][0] == "a2"
    assert sent["custom_events"] == [{"_eventName": "fb_mobile_purchase",
                                      "_logTime": int(NOW.timestamp()), "_valueToSum": 4.99,
                                      "fb_currency": "EUR"}]
