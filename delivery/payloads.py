"""What is sent (spec: Events, "Webhook events" and "Postback events"): the webhook envelope and
its data for install, event and re-engagement, the postback macro values and URL, the
signatures, and the masking of credentials in logged URLs.

Pure: standard library only, no ORM, no clock (times are passed in). The facts come in as the
domain events of `attribution_site.domain_events`, read by attribute, so this module does not
import Django. Field lists and formats are documented in docs/delivery.md.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

INSTALL = "install"
EVENT = "event"
REENGAGEMENT = "re-engagement"
EVENT_TYPES = (INSTALL, EVENT, REENGAGEMENT)
# An install's attribution corrected after the fact (Apple Ads, docs/apple.md). Not a type of
# its own to subscribe to: it goes where the install went (configurations subscribed to
# `install`), so nobody who counts installs misses the correction.
REATTRIBUTION = "re-attribution"
SUBSCRIBED_AS = {REATTRIBUTION: INSTALL}

SPEC_MACROS = ("app_id", "device_id", "media_source", "campaign_id", "match_type",
               "install_time", "click_time", "confidence")
# Ours, documented in docs/delivery.md: what event and re-engagement postbacks need.
EXTRA_MACROS = ("install_id", "platform", "event_type", "event_name", "event_time",
                "event_revenue", "event_currency", "is_rejected", "reject_reason",
                "reject_reason_value")
MACROS = SPEC_MACROS + EXTRA_MACROS
# What identifies the user or the device to a network: emptied for a user who denied
# ad_user_data under the GDPR (docs/privacy.md, "What consent changes"). There are no IP or
# User-Agent macros; `install_id` is ours, but lets a network join one user's facts.
IDENTIFYING_MACROS = ("device_id", "install_id")

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
USER_AGENT = "attribution-delivery/1.0"
SENSITIVE_QUERY_NAME = re.compile(r"(key|token|secret|pass|auth|sig|credential)", re.I)
MASK = "***"


@dataclass(frozen=True)
class Fact:
    """One thing that happened, ready to be turned into webhook bodies and postback values."""

    event_type: str
    source_id: str
    app_id: str
    media_source: str | None
    is_organic: bool
    data: dict[str, Any] = field(hash=False)
    values: dict[str, Any] = field(hash=False)
    # The install it is about (an event's and a re-engagement's too), for the delivery log; a
    # consent-stripped postback's values leave it out, the log still names it.
    install_id: str | None = None


def log_subject(*, event_type: str, source_id: str, install_id: Any, is_test: bool
                ) -> tuple[str | None, int | None]:
    """The install id and event id a delivery log entry names (docs/delivery.md, "Reading the
    logs"). An install's and a re-attribution's source is the install itself, an event's the
    event, so deliveries written before the log kept `install_id` still name what they can;
    a test send names nothing (its sample ids are made up)."""
    if is_test:
        return None, None
    install = str(install_id) if install_id else None
    if event_type in (INSTALL, REATTRIBUTION):
        return install or source_id or None, None
    if event_type == EVENT:
        return install, int(source_id) if source_id.isdigit() else None
    return install, None


def iso_utc(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with milliseconds and a Z: 2024-05-01T12:00:00.000Z."""
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + \
        f"{moment.microsecond // 1000:03d}Z"


def unix_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _decimal_text(amount: Decimal | None) -> str | None:
    if amount is None:
        return None
    return format(Decimal(amount).normalize(), "f")


def _attribution_of(event: Any) -> dict:
    """An install's attribution as installs and re-attributions both describe it."""
    return {
        "app_id": str(event.app_id),
        "install_id": str(event.install_id),
        "device_id": event.device_id,
        "platform": event.platform,
        "media_source": event.media_source,
        "campaign_id": event.campaign_id,
        "match_type": event.match_type,
        "confidence": event.confidence,
    }


def _macro_values(*, event_type: str, app_id: str, install_id: str | None,
                  device_id: str | None, event_time: str | None, platform: str | None = None,
                  media_source: str | None = None, campaign_id: str | None = None,
                  match_type: str | None = None, confidence: float | None = None,
                  install_time: str | None = None, click_time: str | None = None,
                  event_name: str | None = None, event_revenue: str | None = None,
                  event_currency: str | None = None, is_rejected: int = 0,
                  reject_reason: str | None = None,
                  reject_reason_value: Any = None) -> dict[str, Any]:
    """Every macro of one postback, None where its kind has no value, always in this order
    (a POST postback sends them as a JSON object). `is_rejected` is 1 only on a
    rejected-install postback (docs/fraud.md, "What a verdict does")."""
    return {"app_id": app_id, "install_id": install_id, "device_id": device_id,
            "platform": platform, "media_source": media_source, "campaign_id": campaign_id,
            "match_type": match_type, "confidence": confidence, "install_time": install_time,
            "click_time": click_time, "event_type": event_type, "event_name": event_name,
            "event_time": event_time, "event_revenue": event_revenue,
            "event_currency": event_currency, "is_rejected": is_rejected,
            "reject_reason": reject_reason, "reject_reason_value": reject_reason_value}


def install_fact(event: Any, consent: dict | None = None) -> Fact:
    """From an `InstallAttributed`. `consent` (as consent.consent_data.public gives it, or None
    when never sent) goes into the webhook data of every fact."""
    install_time = iso_utc(event.installed_at)
    click_time = iso_utc(event.click_time)
    common = _attribution_of(event)
    data = {**common, "is_organic": event.is_organic, "install_time": install_time,
            "click_time": click_time, "consent": consent, "fraud": fraud_of(event)}
    values = _macro_values(**common, install_time=install_time, click_time=click_time,
                           event_type=INSTALL, event_time=install_time)
    return Fact(INSTALL, str(event.install_id), str(event.app_id), event.media_source,
                event.is_organic, data, values, install_id=str(event.install_id))


def fraud_of(event: Any) -> dict:
    """An install's fraud verdict as webhooks carry it: {status, reasons}."""
    return {"status": getattr(event, "fraud_status", "clean"),
            "reasons": [dict(reason) for reason in getattr(event, "fraud_reasons", ())]}


def rejected_install_values(event: Any) -> dict[str, Any] | None:
    """The macro values of a rejected-install postback to the network whose claim a fraud
    rule refused (`rejected_media_source` of an `InstallAttributed`), or None when no claim
    was refused. It names that network's own click and the first reason; the install's credit
    (organic, or another network's) is not disclosed."""
    source = getattr(event, "rejected_media_source", None)
    if not source:
        return None
    reasons = getattr(event, "fraud_reasons", ())
    first = reasons[0] if reasons else {}
    install_time = iso_utc(event.installed_at)
    return _macro_values(
        app_id=str(event.app_id), install_id=str(event.install_id), device_id=event.device_id,
        platform=event.platform, media_source=source,
        campaign_id=getattr(event, "rejected_campaign_id", None), match_type=None,
        confidence=None, install_time=install_time,
        click_time=iso_utc(getattr(event, "rejected_click_time", None)), event_type=INSTALL,
        event_time=install_time, is_rejected=1, reject_reason=first.get("reason"),
        reject_reason_value=first.get("value"))


def reengagement_fact(event: Any, consent: dict | None = None) -> Fact:
    """From an `InstallReengaged`: the new click that brought a known device back."""
    click_time = iso_utc(event.click_time)
    reengaged = iso_utc(event.reengaged_at)
    data = {
        "app_id": str(event.app_id),
        "reengagement_id": str(event.reengagement_id),
        "install_id": str(event.install_id),
        "device_id": event.device_id,
        "platform": event.platform,
        "media_source": event.media_source,
        "campaign_id": event.campaign_id,
        "match_type": event.match_type,
        "confidence": event.confidence,
        "click_time": click_time,
        "reengagement_time": reengaged,
        "original_media_source": event.original_media_source,
        "consent": consent,
    }
    values = _macro_values(**_attribution_of(event), click_time=click_time,
                           event_type=REENGAGEMENT, event_time=reengaged)
    return Fact(REENGAGEMENT, str(event.reengagement_id), str(event.app_id),
                event.media_source, False, data, values, install_id=str(event.install_id))


def reattribution_fact(event: Any, consent: dict | None = None) -> Fact:
    """From an `InstallReattributed`: the install's new attribution, and what it had before."""
    install_time = iso_utc(event.installed_at)
    click_time = iso_utc(event.click_time)
    reattributed = iso_utc(event.reattributed_at)
    common = _attribution_of(event)
    data = {**common, "adset": event.adset, "ad": event.ad, "is_organic": event.is_organic,
            "install_time": install_time, "click_time": click_time,
            "reattribution_time": reattributed,
            "previous_media_source": event.previous_media_source,
            "previous_campaign_id": event.previous_campaign_id,
            "previous_match_type": event.previous_match_type, "consent": consent,
            "fraud": fraud_of(event)}
    values = _macro_values(**common, install_time=install_time, click_time=click_time,
                           event_type=REATTRIBUTION, event_time=reattributed)
    return Fact(REATTRIBUTION, str(event.install_id), str(event.app_id), event.media_source,
                event.is_organic, data, values, install_id=str(event.install_id))


def event_fact(event: Any, consent: dict | None = None) -> Fact:
    """From an `EventTracked`; media source and campaign are those of the device's install."""
    event_time = iso_utc(event.occurred_at)
    install_id = _text(event.install_id)
    data = {
        "app_id": str(event.app_id),
        "event_id": event.event_id,
        "install_id": install_id,
        "device_id": event.device_id,
        "event_name": event.event_name,
        "properties": event.properties,
        "event_time": event_time,
        "media_source": event.media_source,
        "campaign_id": event.campaign_id,
        "consent": consent,
        "is_blocked": getattr(event, "is_blocked", False),
    }
    values = _macro_values(app_id=data["app_id"], install_id=install_id,
                           device_id=event.device_id, media_source=event.media_source,
                           campaign_id=event.campaign_id, event_type=EVENT,
                           event_name=event.event_name, event_time=event_time,
                           event_revenue=_decimal_text(event.revenue_amount),
                           event_currency=event.revenue_currency)
    # An event of a blocked install credits nobody: no postback, as for an organic one.
    return Fact(EVENT, str(event.event_id), str(event.app_id), event.media_source,
                event.media_source is None or data["is_blocked"], data, values,
                install_id=install_id)


def sample_fact(*, event_type: str, app_id: str, media_source: str | None, platform: str,
                now: datetime) -> Fact:
    """Plausible sample data for the test endpoints, built by the same functions as real
    deliveries so a test exercises exactly what production sends."""
    sample_device = "00000000-0000-4000-8000-000000000000"
    sample_id = "00000000-0000-4000-8000-000000000001"
    source = media_source or "sample_network"
    if event_type == EVENT:
        return event_fact(SimpleNamespace(
            app_id=app_id, event_id=0, install_id=sample_id, device_id=sample_device,
            event_name="purchase", properties={"amount": 9.99, "currency": "USD"},
            occurred_at=now, revenue_amount=Decimal("9.99"), revenue_currency="USD",
            media_source=source, campaign_id="sample_campaign"))
    if event_type == REENGAGEMENT:
        return reengagement_fact(SimpleNamespace(
            app_id=app_id, install_id=sample_id, reengagement_id=sample_id,
            device_id=sample_device, platform=platform, media_source=source,
            campaign_id="sample_campaign", match_type="device_id", confidence=100.0,
            click_time=now - timedelta(minutes=5), reengaged_at=now,
            original_media_source="sample_original_network"))
    return install_fact(SimpleNamespace(
        app_id=app_id, install_id=sample_id, device_id=sample_device, platform=platform,
        media_source=source, campaign_id="sample_campaign", match_type="device_id",
        confidence=100.0, is_organic=False, installed_at=now,
        click_time=now - timedelta(hours=1)))


def without_identifiers(values: dict[str, Any]) -> dict[str, Any]:
    """The macro values with every identifying macro empty (None: an empty string in a URL,
    null in a POST body)."""
    return {name: None if name in IDENTIFYING_MACROS else value
            for name, value in values.items()}


def _json(value: Any) -> str:
    # Compact and UTF-8: these exact characters are what is signed and sent.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def webhook_body(*, message_id: str, event_type: str, timestamp_ms: int, data: dict,
                 test: bool = False) -> str:
    """The envelope. `id` is the delivery id: the same on every retry of one delivery."""
    envelope: dict[str, Any] = {"id": message_id, "event_type": event_type,
                                "timestamp": timestamp_ms, "data": data}
    if test:
        envelope["test"] = True
    return _json(envelope)


def postback_body(values: dict[str, Any]) -> str:
    """The macro values as JSON: what a POST postback sends as its body."""
    return _json(values)


def macro_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return str(value)


def render_url(template: str, values: dict[str, Any]) -> str:
    """Fill `{macro}`s with percent-encoded values. Nothing is left unencoded (not even / ? #
    @ :), so a value can only ever be data inside the path or query, never change the host."""
    def fill(match: re.Match) -> str:
        name = match.group(1)
        if name not in MACROS:
            return match.group(0)
        return quote(macro_text(values.get(name)), safe="")
    return re.sub(r"\{([^{}]*)\}", fill, template)


def mask_url(url: str) -> str:
    """The URL as logged: user and password, and query values whose name looks like a
    credential (key, token, secret, pass, auth, sig), replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    query = "&".join(_mask_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _mask_pair(pair: str) -> str:
    name, sep, _value = pair.partition("=")
    if sep and SENSITIVE_QUERY_NAME.search(unquote(name)):
        return f"{name}={MASK}"
    return pair


def secret_generate() -> str:
    """A Standard Webhooks secret, for webhooks and privacy callbacks alike: whsec_ followed by
    32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def x_signature(secret: str, body: bytes) -> str:
    """`X-Signature`: HMAC-SHA256 of the body keyed with the secret string exactly as shown
    at creation (prefix included), hex encoded, prefixed with sha256=."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def standard_signature(secret: str, *, message_id: str, timestamp: int, body: bytes) -> str:
    """`webhook-signature` per the Standard Webhooks specification: the key is the base64
    part of the whsec_ secret, the signed content is `{id}.{timestamp}.{body}`."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def webhook_headers(*, secret: str, message_id: str, timestamp: int, body: bytes
                    ) -> dict[str, str]:
    """Signature headers for one attempt. `timestamp` (Unix seconds) is the attempt's own, so
    receivers that reject stale timestamps still accept a retry sent an hour later."""
    return {
        "Content-Type": "application/json",
        "X-Signature": x_signature(secret, body),
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature(secret, message_id=message_id,
                                                timestamp=timestamp, body=body),
    }
