"""What is sent, as plain functions: webhook envelopes, postback values and URLs, signatures."""

import base64
import hashlib
import hmac
import json
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

from standardwebhooks import Webhook as StandardWebhook

from attribution_site import domain_events
from delivery import payloads

MOMENT = datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=UTC)
APP_ID = uuid.UUID("11111111-1111-4111-8111-111111111111")


def an_install(**overrides):
    values = dict(app_id=APP_ID, install_id=uuid.UUID(int=7), device_id="gaid-1",
                  platform="android", media_source="network_a", campaign_id="c1",
                  match_type="device_id", confidence=97.5, is_organic=False,
                  installed_at=MOMENT, click_time=datetime(2024, 5, 1, 10, 0, tzinfo=UTC))
    values.update(overrides)
    return domain_events.InstallAttributed(**values)


def test_install_data_carries_the_spec_fields():
    fact = payloads.install_fact(an_install())
    assert {"app_id", "device_id", "platform", "media_source", "campaign_id", "match_type",
            "confidence", "is_organic"} <= set(fact.data)
    assert fact.data["app_id"] == str(APP_ID)
    assert fact.data["is_organic"] is False
    assert fact.data["install_time"] == "2024-05-01T12:00:00.250Z"


def test_install_macro_values_use_iso_8601_utc():
    values = payloads.install_fact(an_install()).values
    assert values["install_time"] == "2024-05-01T12:00:00.250Z"
    assert values["click_time"] == "2024-05-01T10:00:00.000Z"
    assert set(payloads.SPEC_MACROS) <= set(values)


def test_reengagement_data_names_both_sources():
    now = MOMENT
    fact = payloads.reengagement_fact(domain_events.InstallReengaged(
        app_id=APP_ID, install_id=uuid.UUID(int=1), reengagement_id=uuid.UUID(int=2),
        device_id="d", platform="ios", media_source="network_b", campaign_id="winback",
        match_type="device_id", confidence=100.0, click_id=uuid.UUID(int=3), click_time=now,
        reengaged_at=now, original_media_source="network_a"))
    assert fact.event_type == "re-engagement"
    assert fact.data["media_source"] == "network_b"
    assert fact.data["original_media_source"] == "network_a"
    assert fact.data["reengagement_time"] == "2024-05-01T12:00:00.250Z"


def test_event_data_and_revenue_macros():
    fact = payloads.event_fact(domain_events.EventTracked(
        app_id=APP_ID, event_id=42, device_id="d", install_id=None, event_name="purchase",
        properties={"amount": 9.99, "currency": "USD"}, occurred_at=MOMENT,
        revenue_amount=Decimal("9.990000"), revenue_currency="USD", media_source="network_a"))
    assert fact.data["properties"] == {"amount": 9.99, "currency": "USD"}
    assert fact.data["event_name"] == "purchase" and fact.data["event_id"] == 42
    assert fact.values["event_revenue"] == "9.99"
    assert fact.values["event_currency"] == "USD"


def test_the_envelope_has_id_type_timestamp_and_data():
    body = payloads.webhook_body(message_id="m1", event_type="install",
                                 timestamp_ms=1714564800250, data={"a": "é"})
    assert json.loads(body) == {"id": "m1", "event_type": "install",
                                "timestamp": 1714564800250, "data": {"a": "é"}}
    assert "test" not in json.loads(body)
    assert json.loads(payloads.webhook_body(message_id="m", event_type="install",
                                            timestamp_ms=1, data={}, test=True))["test"]


def test_macro_values_are_percent_encoded_so_they_cannot_reach_the_host():
    template = "https://network.example/pb?d={device_id}&c={campaign_id}"
    url = payloads.render_url(template, {"device_id": "x@evil.example/#?",
                                         "campaign_id": "a&b=c d"})
    parts = urlsplit(url)
    assert parts.hostname == "network.example"
    assert parse_qs(parts.query) == {"d": ["x@evil.example/#?"], "c": ["a&b=c d"]}


def test_missing_values_become_empty_and_numbers_read_naturally():
    url = payloads.render_url("http://n.example/?c={confidence}&d={device_id}&o={click_time}",
                              {"confidence": 95.0, "device_id": None})
    assert url == "http://n.example/?c=95&d=&o="


def test_logged_urls_hide_credentials():
    masked = payloads.mask_url(
        "https://user:hunter2@n.example/pb?api_key=abc&token=t&d=device&Signature=s")
    assert masked == "https://***@n.example/pb?api_key=***&token=***&d=device&Signature=***"
    assert payloads.mask_url("https://n.example/pb?d=1") == "https://n.example/pb?d=1"


def test_x_signature_is_the_hex_hmac_of_the_body_keyed_with_the_secret_as_shown():
    secret = "whsec_" + base64.b64encode(b"k" * 32).decode()
    body = b'{"id":"m1"}'
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    assert payloads.x_signature(secret, body) == f"sha256={expected}"


def test_standard_webhooks_headers_pass_an_off_the_shelf_verifier():
    secret = "whsec_" + base64.b64encode(b"s" * 32).decode()
    body = payloads.webhook_body(message_id="msg_1", event_type="install",
                                 timestamp_ms=1, data={"x": 1}).encode()
    headers = payloads.webhook_headers(secret=secret, message_id="msg_1",
                                       timestamp=int(time.time()), body=body)
    assert StandardWebhook(secret).verify(body, headers) == json.loads(body)
    assert headers["webhook-id"] == "msg_1"
    assert headers["X-Signature"] == payloads.x_signature(secret, body)


def test_sample_facts_exist_for_every_event_type():
    for event_type in payloads.EVENT_TYPES:
        fact = payloads.sample_fact(event_type=event_type, app_id=str(APP_ID),
                                    media_source="n", platform="ios", now=MOMENT)
        assert fact.event_type == event_type and fact.data["app_id"] == str(APP_ID)


# Each postback kind's macro values, key for key and in order (a POST postback sends them as a
# JSON object in this order): the one builder must give exactly what each kind always sent.

def test_an_install_postback_has_these_macro_values():
    values = payloads.install_fact(an_install()).values
    assert list(values.items()) == [
        ("app_id", str(APP_ID)), ("install_id", str(uuid.UUID(int=7))), ("device_id", "gaid-1"),
        ("platform", "android"), ("media_source", "network_a"), ("campaign_id", "c1"),
        ("match_type", "device_id"), ("confidence", 97.5),
        ("install_time", "2024-05-01T12:00:00.250Z"),
        ("click_time", "2024-05-01T10:00:00.000Z"), ("event_type", "install"),
        ("event_name", None), ("event_time", "2024-05-01T12:00:00.250Z"),
        ("event_revenue", None), ("event_currency", None),
        ("is_rejected", 0), ("reject_reason", None), ("reject_reason_value", None)]


def test_a_reattribution_postback_has_these_macro_values():
    values = payloads.reattribution_fact(domain_events.InstallReattributed(
        app_id=APP_ID, install_id=uuid.UUID(int=7), device_id=None, platform="ios",
        media_source="apple_ads", campaign_id="542370539", adset="1", ad="2",
        match_type="apple_ads", confidence=100.0, installed_at=MOMENT, click_time=None,
        reattributed_at=datetime(2024, 5, 2, 8, 0, tzinfo=UTC), previous_media_source=None,
        previous_campaign_id=None, previous_match_type="organic")).values
    assert list(values.items()) == [
        ("app_id", str(APP_ID)), ("install_id", str(uuid.UUID(int=7))), ("device_id", None),
        ("platform", "ios"), ("media_source", "apple_ads"), ("campaign_id", "542370539"),
        ("match_type", "apple_ads"), ("confidence", 100.0),
        ("install_time", "2024-05-01T12:00:00.250Z"), ("click_time", None),
        ("event_type", "re-attribution"), ("event_name", None),
        ("event_time", "2024-05-02T08:00:00.000Z"), ("event_revenue", None),
        ("event_currency", None),
        ("is_rejected", 0), ("reject_reason", None), ("reject_reason_value", None)]


def test_a_reengagement_postback_has_these_macro_values():
    values = payloads.reengagement_fact(domain_events.InstallReengaged(
        app_id=APP_ID, install_id=uuid.UUID(int=1), reengagement_id=uuid.UUID(int=2),
        device_id="d", platform="ios", media_source="network_b", campaign_id="winback",
        match_type="device_id", confidence=100.0, click_id=uuid.UUID(int=3),
        click_time=datetime(2024, 5, 1, 11, 0, tzinfo=UTC), reengaged_at=MOMENT,
        original_media_source="network_a")).values
    assert list(values.items()) == [
        ("app_id", str(APP_ID)), ("install_id", str(uuid.UUID(int=1))), ("device_id", "d"),
        ("platform", "ios"), ("media_source", "network_b"), ("campaign_id", "winback"),
        ("match_type", "device_id"), ("confidence", 100.0), ("install_time", None),
        ("click_time", "2024-05-01T11:00:00.000Z"), ("event_type", "re-engagement"),
        ("event_name", None), ("event_time", "2024-05-01T12:00:00.250Z"),
        ("event_revenue", None), ("event_currency", None),
        ("is_rejected", 0), ("reject_reason", None), ("reject_reason_value", None)]


def test_an_event_postback_has_these_macro_values():
    values = payloads.event_fact(domain_events.EventTracked(
        app_id=APP_ID, event_id=42, device_id="d", install_id=uuid.UUID(int=7),
        event_name="purchase", properties={"amount": 9.99, "currency": "USD"},
        occurred_at=MOMENT, revenue_amount=Decimal("9.990000"), revenue_currency="USD",
        media_source="network_a", campaign_id="c1")).values
    assert list(values.items()) == [
        ("app_id", str(APP_ID)), ("install_id", str(uuid.UUID(int=7))), ("device_id", "d"),
        ("platform", None), ("media_source", "network_a"), ("campaign_id", "c1"),
        ("match_type", None), ("confidence", None), ("install_time", None),
        ("click_time", None), ("event_type", "event"), ("event_name", "purchase"),
        ("event_time", "2024-05-01T12:00:00.250Z"), ("event_revenue", "9.99"),
        ("event_currency", "USD"),
        ("is_rejected", 0), ("reject_reason", None), ("reject_reason_value", None)]


def test_an_event_of_a_device_with_no_install_has_no_install_id_macro():
    values = payloads.event_fact(domain_events.EventTracked(
        app_id=APP_ID, event_id=43, device_id=None, install_id=None, event_name="open",
        properties={}, occurred_at=MOMENT)).values
    assert (values["install_id"], values["device_id"], values["event_revenue"]) == (
        None, None, None)
    assert set(values) == set(payloads.MACROS)
