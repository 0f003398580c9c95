"""Google Ads claim policy (docs/networks.md, "Google Ads"): how an answer of Google's App
Conversion Tracking and Remarketing API is read, and when a call is retried or given up.

Pure: standard library (and the outbox's pure timing and replies) only, no ORM, no settings,
no clock. The client hands in what came back (status, body or the network error); the service
hands in the attempt number and a random draw for the jitter.

Google answers a conversion with 200 and a JSON object: `attributed` (whether one of its ads
takes the conversion), `ad_events` (the ad interactions behind it: campaign, ad group, network,
the `ad_event_id` the cross-network answer quotes) and `errors` (what it refused). A 4xx is a
request Google will never accept (a bad developer token, link id or parameter): retrying changes
nothing. A 5xx, a 429, no answer within the budget or a 200 we cannot read means Google is down
or overloaded: retried with backoff over half a day, so an outage loses no claim.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from outbox import timing
from outbox.replies import Reply, ReplyClass

# Google is down or overloaded: back off over most of a day (Apple Ads' schedule).
UNAVAILABLE_DELAYS = (60, 300, 1800, 7200, 21600, 43200)
MAX_ATTEMPTS_PER_STEP = 1 + len(UNAVAILABLE_DELAYS)
# The first_open's tries and the cross-network answer's: a row whose worker was lost is given
# up past both.
MAX_ATTEMPTS = 2 * MAX_ATTEMPTS_PER_STEP
RESPONSE_BODY_LIMIT = 4096
MEDIA_SOURCE = "google"


class Step(enum.StrEnum):
    """What the claim's next call is: the first_open itself, then (only when Google claimed
    the install) the cross-network answer saying whether we credited Google."""

    FIRST_OPEN = "first_open"
    CROSS_NETWORK = "cross_network"


class Reading(enum.StrEnum):
    """What one call told us."""

    ATTRIBUTED = "attributed"          # 200, attributed true with an ad event
    NOT_ATTRIBUTED = "not_attributed"  # 200, attributed false
    ACKNOWLEDGED = "acknowledged"      # 2xx to the cross-network answer
    REJECTED = "rejected"              # 4xx other than 429: never accepted as sent
    UNAVAILABLE = "unavailable"        # 5xx, 429, no answer, or a 200 we cannot read


class State(enum.StrEnum):
    """A claim's life: pending -> sending -> (pending again: a retry, or the cross-network
    answer after Google claimed) -> one final state."""

    PENDING = "pending"
    SENDING = "sending"
    ATTRIBUTED = "attributed"          # Google claimed it; the cross-network step is over
    NOT_ATTRIBUTED = "not_attributed"  # Google did not claim it
    REJECTED = "rejected"              # Google refused the first_open (4xx)
    FAILED = "failed"                  # Google unavailable until the schedule ran out
    SKIPPED = "skipped"                # never sent: the user's consent rules it out


class CrossNetwork(enum.StrEnum):
    """How the cross-network answer ended (on a claim Google attributed)."""

    SENT = "sent"
    FAILED = "failed"


# One call as the client saw it: a status and body, or an error with no answer.
Outcome = Reply


@dataclass(frozen=True)
class AdEvent:
    """The ad interaction Google credits, ids as text (Google sends numbers)."""

    ad_event_id: str
    campaign_id: str | None
    campaign_name: str | None
    ad_group_id: str | None
    ad_group_name: str | None
    network_type: str | None
    network_subtype: str | None
    campaign_type: str | None
    interaction_type: str | None
    touch_time: datetime | None


@dataclass(frozen=True)
class Verdict:
    reading: Reading
    message: str
    answer: dict | None = None  # Google's JSON as received, when it was a JSON object
    ad_event: AdEvent | None = None


@dataclass(frozen=True)
class Decision:
    """`state` is the claim's next state; `retry_in` (seconds) is set only for a retry."""

    state: State
    retry_in: float | None = None


def judge(outcome: Outcome, *, step: Step = Step.FIRST_OPEN) -> Verdict:
    """Read one answer the way Google's specification describes it."""
    if outcome.error is not None:
        return Verdict(Reading.UNAVAILABLE, outcome.error)
    status = outcome.status_code or 0
    if outcome.reply_class == ReplyClass.UNAVAILABLE:  # 429 or 5xx
        return Verdict(Reading.UNAVAILABLE, f"Google answered {status}; retried later.")
    if outcome.reply_class != ReplyClass.ACCEPTED:
        return Verdict(Reading.REJECTED, f"Google answered {status}: the request is refused "
                                         f"as sent ({_snippet(outcome.body)}).")
    if step == Step.CROSS_NETWORK:
        return Verdict(Reading.ACKNOWLEDGED, f"Google accepted the cross-network answer "
                                             f"({status}).")
    return read_conversion(outcome.body)


def read_conversion(body: str) -> Verdict:
    """Google's conversion answer: `attributed` and the first ad event, or why it is unread."""
    try:
        answer = json.loads(body)
    except ValueError:
        return Verdict(Reading.UNAVAILABLE, "Google's answer is not JSON; retried later.")
    if not isinstance(answer, dict) or not isinstance(answer.get("attributed"), bool):
        return Verdict(Reading.UNAVAILABLE,
                       "Google's answer has no boolean `attributed`; retried later.", _obj(answer))
    errors = answer.get("errors")
    problems = (f" Google reported: {_snippet(json.dumps(errors))}"
                if isinstance(errors, list) and errors else "")
    if not answer["attributed"]:
        return Verdict(Reading.NOT_ATTRIBUTED, "Google: not a Google Ads conversion." + problems,
                       answer)
    events = answer.get("ad_events")
    event = _ad_event(events[0]) if isinstance(events, list) and events else None
    if event is None:
        return Verdict(Reading.UNAVAILABLE, "Google said attributed but sent no readable ad "
                                            "event; retried later.", answer)
    return Verdict(Reading.ATTRIBUTED, f"Google: Google Ads campaign {event.campaign_id}.",
                   answer, event)


def _ad_event(raw) -> AdEvent | None:
    if not isinstance(raw, dict):
        return None
    event_id = _text(raw.get("ad_event_id"))
    campaign = _id(raw.get("campaign_id"))
    if event_id is None or campaign is None:
        return None
    return AdEvent(
        ad_event_id=event_id, campaign_id=campaign,
        campaign_name=_text(raw.get("campaign_name")), ad_group_id=_id(raw.get("ad_group_id")),
        ad_group_name=_text(raw.get("ad_group_name")),
        network_type=_text(raw.get("network_type")),
        network_subtype=_text(raw.get("network_subtype")),
        campaign_type=_text(raw.get("campaign_type")),
        interaction_type=_text(raw.get("interaction_type")),
        touch_time=_epoch(raw.get("timestamp")))


def _id(value) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    return _text(value)


def _text(value) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()[:255]
    return None


def _epoch(value) -> datetime | None:
    """Google's timestamps are seconds since the epoch with a fraction (1432681913.123456)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
        return datetime.fromtimestamp(seconds, tz=UTC) if 0 < seconds < 1e11 else None
    except (ValueError, OverflowError, OSError):
        return None


def _obj(value) -> dict | None:
    return value if isinstance(value, dict) else None


def _snippet(text: str) -> str:
    return text[:200] if text else "no body"


def decide(*, verdict: Verdict, attempt_number: int, jitter: float) -> Decision:
    """What follows attempt `attempt_number` (1-based, counted within the claim's current
    step) of a first_open. `jitter` is a draw in [0, 1)."""
    if verdict.reading == Reading.ATTRIBUTED:
        # The cross-network answer goes next, at once, under the same claim.
        return Decision(State.PENDING, 0.0)
    if verdict.reading == Reading.NOT_ATTRIBUTED:
        return Decision(State.NOT_ATTRIBUTED)
    if verdict.reading == Reading.REJECTED:
        return Decision(State.REJECTED)
    return _retry_or(State.FAILED, attempt_number, jitter)


def decide_cross_network(*, verdict: Verdict, attempt_number: int, jitter: float
                         ) -> tuple[Decision, CrossNetwork | None]:
    """After a cross-network try: the claim's next state and how the answer ended (None while
    it is retried). The claim ends `attributed` either way: Google's claim stands whatever
    became of our answer to it."""
    if verdict.reading == Reading.ACKNOWLEDGED:
        return Decision(State.ATTRIBUTED), CrossNetwork.SENT
    if verdict.reading == Reading.REJECTED:
        return Decision(State.ATTRIBUTED), CrossNetwork.FAILED
    decision = _retry_or(State.ATTRIBUTED, attempt_number, jitter)
    return decision, (CrossNetwork.FAILED if decision.retry_in is None else None)


def _retry_or(final: State, attempt_number: int, jitter: float) -> Decision:
    if attempt_number > len(UNAVAILABLE_DELAYS):
        return Decision(final)
    return Decision(State.PENDING, timing.jittered(UNAVAILABLE_DELAYS[attempt_number - 1],
                                                   jitter))


def exhausted(*, attempts_made: int) -> bool:
    """A claim whose worker was lost mid-call is given up once it has had as many tries as
    both steps' schedules allow."""
    return attempts_made >= MAX_ATTEMPTS

