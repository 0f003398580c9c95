"""What every network's spend reading shares (docs/networks.md, "Ad spend"). Pure: standard
library and analytics' row (a plain dataclass) only, no ORM, no settings, no clock.

A platform module (networks/<platform>/spend.py) turns a connection's values and a window of
days into calls (`Call`), and the answers (`Answer`) into `SpendRow`s, one per (day, ad or ad
group); a call it cannot use raises `PullError` with the network's own words. The calls are
made by whoever hands in `call` (networks/spend/client.py in the service, a fake in tests), so
the reading is tested without a network.
"""

from __future__ import annotations

import email.utils
import enum
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

# The row analytics stores (analytics/costs/rows.py, pure): one day of one ad, or of one ad
# group where the network reports no finer level; ids as text, spend in the account's currency.
from analytics.costs import SpendRow

LOOKBACK_DEFAULT_DAYS = 7
LOOKBACK_MAXIMUM_DAYS = 30
# The longest Retry-After honoured: a network asking for more is asked again in an hour.
RETRY_AFTER_MAXIMUM_SECONDS = 3600
MESSAGE_LIMIT = 500


@dataclass(frozen=True)
class Call:
    """One HTTP request to a network. `secrets` are the values no error, log or stored text
    may carry (tokens, keys): the client masks them wherever the request could be quoted."""

    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    secrets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """What came back: a status and body, or `error` (no answer: timeout, refused, reset)."""

    status_code: int | None = None
    body: str = ""
    retry_after: str | None = None
    error: str | None = None


class Failure(enum.StrEnum):
    UNAVAILABLE = "unavailable"  # no answer, 5xx: retried with backoff
    RATE_LIMITED = "rate_limited"  # 429 or the network's own "too many calls": Retry-After
    REFUSED = "refused"  # 4xx and the network's refusals: final, in the network's words


class PullError(Exception):
    """A call the pull cannot use: why (in words), and how the retry policy should take it."""

    def __init__(self, failure: Failure, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.failure = failure
        self.message = message
        self.retry_after = retry_after


CallFn = Callable[[Call], Answer]


# --- Windows and filters ---------------------------------------------------------------------

def window(*, today: date, lookback_days: int) -> tuple[date, date]:
    """The days a pull asks for: the last `lookback_days` days up to and including `today`
    (networks restate recent days, so each pull takes them all again)."""
    return today - timedelta(days=lookback_days - 1), today


def days_of(since: date, until: date) -> list[date]:
    return [since + timedelta(days=n) for n in range((until - since).days + 1)]


@dataclass(frozen=True)
class CampaignFilter:
    """For an account that advertises several apps: only these campaign ids, or only
    campaigns whose name contains the text (case-insensitive). Empty: every campaign."""

    campaign_ids: frozenset[str] = frozenset()
    name_contains: str = ""

    def keeps(self, row: SpendRow) -> bool:
        if self.campaign_ids and row.campaign_id not in self.campaign_ids:
            return False
        if self.name_contains and self.name_contains.casefold() not in \
                row.campaign_name.casefold():
            return False
        return True


def filtered(rows: Iterable[SpendRow], keep: CampaignFilter) -> Iterator[SpendRow]:
    return (row for row in rows if keep.keeps(row))


# --- Reading answers ---------------------------------------------------------------------------

def decimal_of(value, *, what: str, network: str) -> Decimal:
    """A money amount as the networks send it: a string ("12.34") or a number."""
    try:
        amount = Decimal(str(value if value not in (None, "") else "0"))
    except InvalidOperation:
        raise PullError(Failure.REFUSED, f"{network} sent {what} that is not a number: "
                                         f"{str(value)[:40]!r}.") from None
    if not amount.is_finite():
        raise PullError(Failure.REFUSED, f"{network} sent {what} that is not a number.")
    return amount


def count_of(value, *, what: str, network: str) -> int:
    """A count as the networks send it: "1200", 1200 or "1200.0"."""
    return int(decimal_of(value, what=what, network=network))


def day_of(value, *, network: str) -> date:
    """A day as the networks send it: "2026-03-01" or "2026-03-01 00:00:00" (TikTok)."""
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        raise PullError(Failure.REFUSED, f"{network} sent a day that is not a date: "
                                         f"{str(value)[:40]!r}.") from None


def json_of(answer: Answer, *, network: str):
    try:
        return json.loads(answer.body)
    except ValueError:
        raise PullError(Failure.UNAVAILABLE, f"{network} answered {answer.status_code} with "
                                             "a body that is not JSON.") from None


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """Retry-After as seconds: delta-seconds, or an HTTP date (`now` needed for that)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(min(int(value), RETRY_AFTER_MAXIMUM_SECONDS))
    if now is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, min((when - now).total_seconds(), RETRY_AFTER_MAXIMUM_SECONDS))


def unusable(answer: Answer, *, network: str, message: str | None = None) -> PullError:
    """The common reading of an answer that is not a success: no answer or 5xx is
    unavailable, 429 rate-limited (with its Retry-After), any other status refused, in the
    network's own words when it gave some (`message`)."""
    if answer.error is not None:
        return PullError(Failure.UNAVAILABLE, f"Could not reach {network}: {answer.error}")
    status = answer.status_code or 0
    said = f": {clip(message)}" if message else "."
    if status == 429:
        return PullError(Failure.RATE_LIMITED, f"{network} answered 429 (too many requests)"
                                               f"{said}", retry_after_seconds(answer.retry_after))
    if status >= 500:
        return PullError(Failure.UNAVAILABLE, f"{network} answered {status}{said}")
    return PullError(Failure.REFUSED, f"{network} answered {status}{said}")


def clip(text: str) -> str:
    """A network's message as kept: one line, at most MESSAGE_LIMIT characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= MESSAGE_LIMIT else line[:MESSAGE_LIMIT - 1] + "…"


def masked(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret replaced: what an error may say once a network quoted it."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[secret]")
    return text
