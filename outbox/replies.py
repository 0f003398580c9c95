"""What a platform API answered (Apple Ads, Google Ads, Meta), as the platforms' JSON client
(outbox/json_client.py) hands it to a kind's policy: a `Reply`, and the reading every platform
shares (`ReplyClass`). A kind's policy may read more into a status (Apple's 404 is "no record
yet"); the rest it takes from here.

Pure: standard library only, so the kinds' pure policies use it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ReplyClass(enum.StrEnum):
    ACCEPTED = "accepted"  # 2xx
    UNAVAILABLE = "unavailable"  # no answer, 5xx or 429: down or busy; worth trying later
    REFUSED = "refused"  # 4xx other than 429: refused as sent; retrying changes nothing
    UNEXPECTED = "unexpected"  # 1xx or 3xx: no API answer (redirects are never followed)


def classify(status_code: int | None) -> ReplyClass:
    """The platforms' common reading of a status; None: no answer."""
    if status_code is None or status_code == 429 or status_code >= 500:
        return ReplyClass.UNAVAILABLE
    if 200 <= status_code < 300:
        return ReplyClass.ACCEPTED
    if 400 <= status_code < 500:
        return ReplyClass.REFUSED
    return ReplyClass.UNEXPECTED


@dataclass(frozen=True)
class Reply:
    """One call as the client saw it: a status and body, or an error with no answer."""

    status_code: int | None = None
    body: str = ""  # text, NUL-free (PostgreSQL refuses NUL), bounded by the caller's limit
    error: str | None = None
    duration_ms: int = 0

    @property
    def reply_class(self) -> ReplyClass:
        return classify(None if self.error is not None else self.status_code)


def text(raw: bytes, limit: int) -> str:
    """An answer as stored: text, NUL-free, from at most `limit` bytes of it."""
    return raw[:limit].decode("utf-8", errors="replace").replace("\x00", "\ufffd")
