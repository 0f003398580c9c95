"""Apple Ads token exchange policy (docs/apple.md, "Apple Ads: a correction after the waterfall"):
how Apple's answer to the AdServices attribution API is read, and when an exchange is retried or
given up.

Pure: standard library (and the outbox's pure timing and replies) only, no ORM, no settings,
no clock. The client hands in what came back (status, body or the network error); the service
hands in the attempt number, the token's age and a random draw for the jitter. Apple documents
four answers: 200 with the attribution record (`attribution` true or false), 400 (the token is
invalid), 404 (no record yet: "a 404 can occur if you make an API call too quickly after
receiving a valid token", retried every 5 s up to three times in Apple's own example) and 500
(Apple's server is unavailable).
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from outbox import timing
from outbox.replies import Reply, ReplyClass

# Apple: the token "has a 24-hour TTL". No retry is scheduled past it: the answer would be a 400.
TOKEN_TTL_SECONDS = 24 * 3600
# 404 "not yet": Apple's three 5-second retries, then a few longer waits for a record that is
# late (a device that installed offline, or Apple's backlog); after about an hour and a quarter
# a record that still is not there is treated as "no Apple Ads attribution".
NOT_YET_DELAYS = (5, 5, 5, 30, 120, 600, 3600)
# 5xx, 429, timeouts, refused connections: Apple is down or overloaded. Back off over most of
# the token's life, so an outage of some hours loses no Apple Ads install.
UNAVAILABLE_DELAYS = (60, 300, 1800, 7200, 21600, 43200)
RESPONSE_BODY_LIMIT = 2048
MEDIA_SOURCE = "apple_search_ads"


class Reading(enum.StrEnum):
    """What one exchange told us."""

    ATTRIBUTED = "attributed"          # 200, attribution true: re-attribute the install
    NOT_ATTRIBUTED = "not_attributed"  # 200, attribution false: not an Apple Ads install
    NOT_YET = "not_yet"                # 404: Apple has no record yet
    INVALID_TOKEN = "invalid_token"    # 400: never valid; retrying changes nothing
    UNAVAILABLE = "unavailable"        # 5xx, 429, no answer, or a 200 we cannot read
    REFUSED = "refused"                # any other status (401, 403, 3xx...): not Apple's API


class State(enum.StrEnum):
    """A claim's life: pending -> sending -> (pending again for a retry) -> one final state."""

    PENDING = "pending"
    SENDING = "sending"
    ATTRIBUTED = "attributed"
    NOT_ATTRIBUTED = "not_attributed"
    NOT_FOUND = "not_found"  # 404 until the schedule ran out
    INVALID = "invalid"      # 400
    FAILED = "failed"        # Apple unavailable until the schedule or the token's life ran out


FINAL_STATE = {
    Reading.ATTRIBUTED: State.ATTRIBUTED,
    Reading.NOT_ATTRIBUTED: State.NOT_ATTRIBUTED,
    Reading.NOT_YET: State.NOT_FOUND,
    Reading.INVALID_TOKEN: State.INVALID,
    Reading.UNAVAILABLE: State.FAILED,
    Reading.REFUSED: State.FAILED,
}
RETRY_DELAYS = {Reading.NOT_YET: NOT_YET_DELAYS, Reading.UNAVAILABLE: UNAVAILABLE_DELAYS}
# The first try and the longest schedule's retries.
MAX_ATTEMPTS = 1 + max(len(delays) for delays in RETRY_DELAYS.values())


# One call as the client saw it: a status and body, or an error with no answer.
Outcome = Reply


@dataclass(frozen=True)
class AppleAttribution:
    """Apple's record of an Apple Ads install, the ids as text (Apple sends numbers)."""

    org_id: str | None
    campaign_id: str
    ad_group_id: str | None
    keyword_id: str | None
    ad_id: str | None
    conversion_type: str | None
    claim_type: str | None
    country_or_region: str | None
    click_date: datetime | None

    @property
    def ad(self) -> str | None:
        """The install's `ad`: the keyword for search-results ads, else the ad (Today tab,
        Search tab and product pages have no keyword)."""
        return self.keyword_id or self.ad_id


@dataclass(frozen=True)
class Verdict:
    reading: Reading
    message: str
    answer: dict | None = None  # Apple's JSON as received, when it was a JSON object
    attribution: AppleAttribution | None = None


@dataclass(frozen=True)
class Decision:
    """`state` is the claim's next state; `retry_in` (seconds) is set only for a retry."""

    state: State
    retry_in: float | None = None


def judge(outcome: Outcome) -> Verdict:
    """Read one answer the way Apple documents them."""
    if outcome.error is not None:
        return Verdict(Reading.UNAVAILABLE, outcome.error)
    status = outcome.status_code or 0
    if status == 200:
        return _read_record(outcome.body)
    if status == 400:
        return Verdict(Reading.INVALID_TOKEN, "Apple answered 400: the token is invalid.")
    if status == 404:
        return Verdict(Reading.NOT_YET, "Apple answered 404: no attribution record yet.")
    if outcome.reply_class == ReplyClass.UNAVAILABLE:  # 429 or 5xx
        return Verdict(Reading.UNAVAILABLE, f"Apple answered {status}: unavailable.")
    return Verdict(Reading.REFUSED, f"Apple answered {status}, which its API does not document.")


def _read_record(body: str) -> Verdict:
    try:
        answer = json.loads(body)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not isinstance(answer.get("attribution"), bool):
        # A 200 without a record is no answer of Apple's API (a proxy's page, a truncated
        # body): try again later rather than conclude anything about the install.
        return Verdict(Reading.UNAVAILABLE, "Apple answered 200 without an attribution record.")
    if not answer["attribution"]:
        return Verdict(Reading.NOT_ATTRIBUTED, "Apple: not an Apple Ads install.", answer)
    record = attribution_record(answer)
    if record is None:
        return Verdict(Reading.UNAVAILABLE, "Apple answered attribution true without a campaign.",
                       answer)
    return Verdict(Reading.ATTRIBUTED, f"Apple: Apple Ads campaign {record.campaign_id}.",
                   answer, record)


def attribution_record(answer: dict) -> AppleAttribution | None:
    """Apple's record in an answer (the JSON object as stored on a claim); None without a
    campaign."""
    campaign = _id(answer.get("campaignId"))
    if campaign is None:
        return None
    return AppleAttribution(
        org_id=_id(answer.get("orgId")), campaign_id=campaign,
        ad_group_id=_id(answer.get("adGroupId")), keyword_id=_id(answer.get("keywordId")),
        ad_id=_id(answer.get("adId")), conversion_type=_str(answer.get("conversionType")),
        claim_type=_str(answer.get("claimType")),
        country_or_region=_str(answer.get("countryOrRegion")),
        click_date=parse_click_date(answer.get("clickDate")))


def _id(value) -> str | None:
    """Apple's ids are integers; text ones are taken as they are. Booleans and the rest are
    not ids."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()[:255]
    return None


def _str(value) -> str | None:
    return value[:64] if isinstance(value, str) and value else None


def parse_click_date(value) -> datetime | None:
    """Apple writes `2020-04-08T17:17Z` (minutes, no seconds); seconds are read too. UTC."""
    if not isinstance(value, str):
        return None
    for pattern in ("%Y-%m-%dT%H:%MZ", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ"):
        try:
            return datetime.strptime(value, pattern).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def decide(*, verdict: Verdict, attempt_number: int, token_age_seconds: float,
           jitter: float) -> Decision:
    """What follows attempt `attempt_number` (1-based) of a token received `token_age_seconds`
    ago. `jitter` is a draw in [0, 1)."""
    delays = RETRY_DELAYS.get(verdict.reading)
    if delays is None or attempt_number > len(delays):
        return Decision(FINAL_STATE[verdict.reading])
    retry_in = timing.jittered(delays[attempt_number - 1], jitter)
    if token_age_seconds + retry_in >= TOKEN_TTL_SECONDS:
        return Decision(FINAL_STATE[verdict.reading])
    return Decision(State.PENDING, retry_in)


def exhausted(*, attempts_made: int, token_age_seconds: float) -> bool:
    """A claim whose worker was lost mid-exchange is given up once it has had as many tries as
    the longest schedule allows, or once its token has expired (Apple would answer 400)."""
    return attempts_made >= MAX_ATTEMPTS or token_age_seconds >= TOKEN_TTL_SECONDS

