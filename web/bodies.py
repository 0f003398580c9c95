"""The web endpoints' bodies, checked (docs/web-sdk-wire.md). Pure: standard library only.

Each `*_body` takes the parsed JSON object and returns the plain value or raises `BodyError`
with every bad field and why, which the views answer as 400 naming them. Unknown fields are
ignored, as the SDK endpoints ignore them: a newer script may send more.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

MAX_URL = 2048
MAX_PARAM = 256
MAX_CUSTOMER_ID = 255
EARLIEST_MS = 946_684_800_000  # 2000-01-01
URL_PARAMS = ("attribution_click_id", "utm_source", "utm_medium", "utm_campaign", "utm_term",
              "utm_content", "gclid", "fbclid", "ttclid")


class BodyError(ValueError):
    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(", ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class ConsentFlags:
    ad_user_data: bool | None
    ad_personalization: bool | None


@dataclass(frozen=True)
class VisitBody:
    web_id: str
    visit_id: uuid.UUID
    timestamp_ms: int
    url: str
    referrer: str
    params: dict[str, str]  # the URL parameters of URL_PARAMS that were sent
    consent: ConsentFlags | None
    gpc: bool
    sdk_version: str


@dataclass(frozen=True)
class EventBody:
    web_id: str
    event_name: str
    properties: dict
    timestamp_ms: int
    event_id: str
    gpc: bool


@dataclass(frozen=True)
class IdentifyBody:
    web_id: str
    customer_user_id: str


@dataclass(frozen=True)
class ConsentBody:
    web_id: str
    consent: ConsentFlags
    timestamp_ms: int
    gpc: bool


class _Check:
    def __init__(self, data: dict[str, Any]):
        self.data, self.errors = data, {}

    def fail(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def uuid4(self, field: str) -> str | None:
        value = self.data.get(field)
        try:
            parsed = uuid.UUID(value) if isinstance(value, str) and len(value) == 36 else None
        except ValueError:
            parsed = None
        if parsed is None or parsed.version != 4:
            self.fail(field, "Required: a UUID v4 string.")
            return None
        return str(parsed)

    def text(self, field: str, *, limit: int, required: bool = True,
             allow_empty: bool = False) -> str | None:
        value = self.data.get(field)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (not value.strip() and not allow_empty):
            self.fail(field, "Required: a non-empty string." if not allow_empty
                      else "Required: a string.")
            return None
        if len(value) > limit:
            self.fail(field, f"At most {limit} characters.")
            return None
        if "\x00" in value:
            self.fail(field, "Must not contain NUL characters.")
            return None
        return value

    def timestamp(self, field: str, *, now_ms: int) -> int | None:
        value = self.data.get(field)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(field, "Required: Unix time in milliseconds (a number).")
            return None
        if not EARLIEST_MS <= value <= now_ms + 24 * 3600 * 1000:
            self.fail(field, "Out of range: Unix milliseconds between 2000 and tomorrow.")
            return None
        return int(value)

    def flag(self, field: str, source: dict | None = None) -> bool | None:
        value = (self.data if source is None else source).get(field)
        if value is not None and not isinstance(value, bool):
            self.fail(field, "Must be true, false or null.")
            return None
        return value

    def gpc(self) -> bool:
        value = self.data.get("gpc")
        if value not in (None, True, False):
            self.fail("gpc", "When given: true or false.")
        return value is True

    def done(self) -> None:
        if self.errors:
            raise BodyError(self.errors)


def visit_body(data: dict[str, Any], *, now_ms: int) -> VisitBody:
    check = _Check(data)
    web_id, visit_id = check.uuid4("web_id"), check.uuid4("visit_id")
    timestamp = check.timestamp("timestamp", now_ms=now_ms)
    url = check.text("url", limit=MAX_URL)
    referrer = check.text("referrer", limit=MAX_URL, required=False, allow_empty=True) or ""
    params = {}
    for name in URL_PARAMS:
        value = check.text(name, limit=MAX_PARAM, required=False, allow_empty=True)
        if value and value.strip():
            params[name] = value.strip()
    consent = None
    raw = data.get("consent")
    if raw is not None and not isinstance(raw, dict):
        check.fail("consent", "When given: {ad_user_data, ad_personalization}.")
    elif raw is not None:
        consent = ConsentFlags(check.flag("ad_user_data", raw),
                               check.flag("ad_personalization", raw))
        if "ad_user_data" in check.errors or "ad_personalization" in check.errors:
            check.errors["consent"] = check.errors.pop("ad_user_data", []) + \
                check.errors.pop("ad_personalization", [])
    gpc = check.gpc()
    sdk_version = check.text("sdk_version", limit=64, required=False) or ""
    check.done()
    return VisitBody(web_id=web_id, visit_id=uuid.UUID(visit_id), timestamp_ms=timestamp,
                     url=url, referrer=referrer, params=params, consent=consent, gpc=gpc,
                     sdk_version=sdk_version)


def event_body(data: dict[str, Any], *, now_ms: int) -> EventBody:
    check = _Check(data)
    web_id, event_id = check.uuid4("web_id"), check.uuid4("event_id")
    name = check.text("event_name", limit=128)
    properties = data.get("properties", {})
    if not isinstance(properties, dict):
        check.fail("properties", "When given: a JSON object.")
    timestamp = check.timestamp("timestamp", now_ms=now_ms)
    gpc = check.gpc()
    check.done()
    return EventBody(web_id=web_id, event_name=name.strip(), properties=properties,
                     timestamp_ms=timestamp, event_id=event_id, gpc=gpc)


def identify_body(data: dict[str, Any]) -> IdentifyBody:
    check = _Check(data)
    web_id = check.uuid4("web_id")
    customer = check.text("customer_user_id", limit=MAX_CUSTOMER_ID)
    check.done()
    return IdentifyBody(web_id=web_id, customer_user_id=customer.strip())


def consent_body(data: dict[str, Any], *, now_ms: int) -> ConsentBody:
    check = _Check(data)
    web_id = check.uuid4("web_id")
    for field in ("ad_user_data", "ad_personalization"):
        if field not in data:
            check.fail(field, "Required: true, false or null.")
    flags = ConsentFlags(check.flag("ad_user_data"), check.flag("ad_personalization"))
    timestamp = check.timestamp("timestamp", now_ms=now_ms)
    gpc = check.gpc()
    check.done()
    return ConsentBody(web_id=web_id, consent=flags, timestamp_ms=timestamp, gpc=gpc)


def moment(timestamp_ms: int, *, now: datetime, earliest: datetime) -> datetime:
    """A browser's time, kept within [earliest, now]: a replayed call happened when it
    happened, but a wrong clock must not put it in the future or before the window."""
    return min(now, max(earliest, datetime.fromtimestamp(timestamp_ms / 1000, tz=UTC)))
