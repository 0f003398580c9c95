"""Validation of an SDK event batch (spec: POST /events, In-app event object). Pure.

Request-level problems sink the request (the caller gets 400); per-event problems do not: each
bad event is listed with its index and errors, and the good ones are stored. The limits and
why: docs/decisions.md, "Events".
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import NamedTuple

from attribution_site.currencies import currency_code
from consent.consent_data import Consent, ConsentDataError
from consent.consent_data import parse as consent_parse

MAX_EVENTS_PER_BATCH = 500
MAX_EVENT_NAME_LENGTH = 128
MAX_PROPERTIES_BYTES = 16 * 1024
MAX_EVENT_ID_LENGTH = 128
EARLIEST_MS = 946_684_800_000  # 2000-01-01
FUTURE_TOLERANCE_MS = 24 * 3600 * 1000
MAX_AMOUNT = Decimal("1e12")
NUL_MESSAGE = "Must not contain NUL characters."
_PROPERTIES_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class CleanEvent(NamedTuple):  # up to 500 a request: a NamedTuple builds fastest
    index: int
    event_name: str
    properties: dict
    properties_json: str
    occurred_at: datetime
    session_id: uuid.UUID
    event_id: str | None
    revenue_amount: Decimal | None
    revenue_currency: str | None
    consent: Consent | None = None  # the user's consent when it happened, when sent


@dataclass(frozen=True)
class BatchCheck:
    events: list[CleanEvent]
    rejected: list[dict]
    warnings: list[dict]


def check_batch(raw_events: list, *, now_ms: int) -> BatchCheck:
    events: list[CleanEvent] = []
    rejected: list[dict] = []
    warnings: list[dict] = []
    for index, raw in enumerate(raw_events):
        errors: dict[str, list[str]] = {}
        event = _check_event(index, raw, now_ms, errors, warnings)
        if errors:
            rejected.append({"index": index, "errors": errors})
        elif event is not None:
            events.append(event)
    return BatchCheck(events, rejected, warnings)


def _check_event(index: int, raw, now_ms: int, errors: dict, warnings: list
                 ) -> CleanEvent | None:
    if not isinstance(raw, dict):
        errors["non_field_errors"] = ["Each event must be a JSON object."]
        return None
    name = raw.get("event_name")
    if not isinstance(name, str) or not name.strip():
        errors["event_name"] = ["Required: a non-empty string."]
    elif len(name) > MAX_EVENT_NAME_LENGTH:
        errors["event_name"] = [f"At most {MAX_EVENT_NAME_LENGTH} characters."]
    elif problem := _unstorable(name):
        errors["event_name"] = [problem]
    properties = raw.get("properties")
    properties_json = ""
    if not isinstance(properties, dict):
        errors["properties"] = ["Required: a JSON object."]
    else:
        properties_json = _PROPERTIES_JSON.encode(properties)
        if "\\u0000" in properties_json:  # PostgreSQL's jsonb cannot hold it
            errors["properties"] = [NUL_MESSAGE]
        elif problem := _unstorable(properties_json):
            errors["properties"] = [problem]
        # UTF-8 takes at most 4 bytes a character: short text needs no encoding to be measured.
        elif (len(properties_json) * 4 > MAX_PROPERTIES_BYTES
                and len(properties_json.encode()) > MAX_PROPERTIES_BYTES):
            errors["properties"] = [f"At most {MAX_PROPERTIES_BYTES} bytes of JSON."]
    timestamp = raw.get("timestamp")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int | float):
        errors["timestamp"] = ["Required: Unix time in milliseconds (a number)."]
    elif not EARLIEST_MS <= timestamp <= now_ms + FUTURE_TOLERANCE_MS:
        errors["timestamp"] = ["Out of range: Unix milliseconds between 2000 and tomorrow."]
    session_id = _uuid(raw.get("session_id"))
    if session_id is None:
        errors["session_id"] = ["Required: a UUID string."]
    event_id = raw.get("event_id")
    if event_id is not None and (not isinstance(event_id, str) or not event_id
                                 or len(event_id) > MAX_EVENT_ID_LENGTH):
        errors["event_id"] = [f"When given: a string of 1 to {MAX_EVENT_ID_LENGTH} characters."]
    elif event_id is not None and (problem := _unstorable(event_id)):
        errors["event_id"] = [problem]
    consent = None
    if raw.get("consent_data") is not None:
        try:
            consent = consent_parse(raw["consent_data"])
        except ConsentDataError as exc:
            errors[exc.field] = [exc.message]
    if errors:
        return None
    amount, currency = _revenue(index, properties, warnings)
    return CleanEvent(
        index=index, event_name=name.strip(), properties=properties,
        properties_json=properties_json,
        occurred_at=datetime.fromtimestamp(timestamp / 1000, tz=UTC),
        session_id=session_id, event_id=event_id, revenue_amount=amount,
        revenue_currency=currency, consent=consent)


def _unstorable(text: str) -> str | None:
    """Why `text` cannot be stored as sent, or None: a NUL (PostgreSQL's text cannot hold one)
    or a lone surrogate (JSON's `\\ud800` escapes decode to one, and UTF-8 cannot encode it)."""
    if "\x00" in text:
        return NUL_MESSAGE
    try:
        text.encode()
    except UnicodeEncodeError as error:
        return f"Surrogate characters are not allowed: U+{ord(text[error.start]):04X}."
    return None


def _uuid(value) -> uuid.UUID | None:
    if not isinstance(value, str):
        return None
    return _parsed_uuid(value)


@lru_cache(maxsize=4096)  # a batch's events mostly share their session
def _parsed_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _revenue(index: int, properties: dict, warnings: list
             ) -> tuple[Decimal | None, str | None]:
    """A revenue event has a numeric `amount` and an ISO 4217 `currency`; refunds are negative.

    An event that tries to carry revenue but gets it wrong is still stored (never lose data),
    as a plain event, with a warning naming the problem.
    """
    if "amount" not in properties and "currency" not in properties:
        return None, None
    amount, currency = properties.get("amount"), properties.get("currency")
    value: Decimal | None = None
    if isinstance(amount, int | float) and not isinstance(amount, bool):
        value = Decimal(str(amount))
    elif isinstance(amount, str):
        try:
            value = Decimal(amount.strip())
        except InvalidOperation:
            value = None
    if value is None or not value.is_finite() or abs(value) >= MAX_AMOUNT:
        warnings.append({"index": index, "message":
                         "properties.amount is not a number; stored as a plain event."})
        return None, None
    code = currency_code(currency)
    if code is None:
        warnings.append({"index": index, "message":
                         "properties.currency is not an ISO 4217 code; stored as a plain event."})
        return None, None
    return value.quantize(Decimal("0.000001")), code
