"""In-process domain events: how tracking tells other apps what happened, in plain values.

`publish` hands each event to its subscribers inside the write that records the fact. A
subscriber adds the rows that follow from it to that write's batch
(attribution_site/write_batch.py), so they commit or roll back with it (delivery creates its
delivery rows here), and schedules whatever must wait for the commit (messages, observers,
anything that leaves the process) with the batch's `after_commit`. Subscribers register in
their AppConfig.ready(). See docs/decisions.md.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from attribution_site.docstrings import summary
from attribution_site.write_batch import WriteBatch


@dataclass(frozen=True)
class InstallAttributed:
    """A new install and its attribution (organic ones included)."""

    app_id: uuid.UUID
    install_id: uuid.UUID
    device_id: str | None
    platform: str
    media_source: str | None
    campaign_id: str | None
    match_type: str
    confidence: float
    is_organic: bool
    installed_at: datetime
    click_id: uuid.UUID | None = None
    click_time: datetime | None = None
    # Apple's AdServices token when the SDK sent one (apple_ads claims it); never in a repr,
    # since it is a credential for a day.
    attribution_token: str = field(default="", repr=False)
    # The consent sent with the install (a consent.consent_data.Consent), or None: its row is
    # written in the same statement, after the subscribers have run.
    consent: Any = None
    # The fraud verdict (fraud/verdict.py): clean | flagged | blocked, its reasons as dicts,
    # and the claim a rule refused, if one was (its network may get a rejected-install
    # postback, never a credit).
    fraud_status: str = "clean"
    fraud_reasons: tuple[dict, ...] = ()
    rejected_media_source: str | None = None
    rejected_campaign_id: str | None = None
    rejected_click_time: datetime | None = None
    # What a platform's claim reports about the device (google_ads): the Play referrer as
    # sent (its gclid), the versions, and the device's address and User-Agent.
    install_referrer: str = ""
    os_version: str = ""
    sdk_version: str = ""
    ip: str | None = field(default=None, repr=False)
    user_agent: str = ""


@dataclass(frozen=True)
class InstallReattributed:
    """A recorded install whose attribution changed after the fact: Apple's attribution API
    said it came from Apple Ads (apple_ads), Google's App Conversion API claimed it
    (google_ads), or beat found its source flooding clicks. The values are the new attribution;
    `previous_*` what the waterfall had decided."""

    app_id: uuid.UUID
    install_id: uuid.UUID
    device_id: str | None
    platform: str
    media_source: str
    campaign_id: str | None
    adset: str | None
    ad: str | None
    match_type: str
    confidence: float
    installed_at: datetime
    click_time: datetime | None
    reattributed_at: datetime
    previous_media_source: str | None
    previous_campaign_id: str | None
    previous_match_type: str
    is_organic: bool = False
    # A verdict found after the fact (beat's click-flood check): the attribution above is
    # unchanged and `post_attribution` takes the install out of the paid counts.
    fraud_status: str = "clean"
    fraud_reasons: tuple[dict, ...] = ()


@dataclass(frozen=True)
class InstallReengaged:
    """A known device came back through a new click after its attribution."""

    app_id: uuid.UUID
    install_id: uuid.UUID
    reengagement_id: uuid.UUID
    device_id: str | None
    platform: str
    media_source: str | None
    campaign_id: str | None
    match_type: str
    confidence: float
    click_id: uuid.UUID
    click_time: datetime
    reengaged_at: datetime
    original_media_source: str | None = None


class EventTracked(NamedTuple):
    """One in-app event accepted from an SDK batch. A NamedTuple, not a frozen dataclass like
    the others: a batch publishes up to 500 of them, and it builds ten times faster."""

    app_id: uuid.UUID
    event_id: int
    device_id: str | None
    install_id: uuid.UUID | None
    event_name: str
    properties: dict[str, Any]
    occurred_at: datetime
    revenue_amount: Decimal | None = None
    revenue_currency: str | None = None
    media_source: str | None = None
    campaign_id: str | None = None
    consent: Any = None  # the event's own consent_data (a consent Consent), or None
    is_blocked: bool = False  # of a blocked install: no postback, left out of revenue


DomainEvent = InstallAttributed | InstallReattributed | InstallReengaged | EventTracked
Handler = Callable[[Sequence[DomainEvent], WriteBatch], None]

_subscribers: dict[type, list[Handler]] = {}


def subscribe(event_type: type, handler: Handler) -> None:
    """Register a handler; it receives a list of events of one type per publication and the
    WriteBatch to add its rows to, inside the recording transaction."""
    handlers = _subscribers.setdefault(event_type, [])
    if handler not in handlers:
        handlers.append(handler)


def unsubscribe(event_type: type, handler: Handler) -> None:
    if handler in _subscribers.get(event_type, []):
        _subscribers[event_type].remove(handler)


def publish(events: Sequence[DomainEvent], *, batch: WriteBatch | None = None) -> None:
    """Hand events (all of one type) to subscribers.

    With `batch` (the one that writes the fact itself), subscribers add their rows to it and
    the caller executes it. Without, call this inside the transaction that recorded the fact:
    the subscribers' rows are written at once, in that transaction."""
    if not events:
        return
    own_batch = batch is None
    batch = WriteBatch() if own_batch else batch
    for handler in list(_subscribers.get(type(events[0]), [])):
        handler(events, batch)  # errors propagate: the fact and its consequences go together
    if own_batch:
        batch.execute()


def describe() -> list[dict[str, str]]:
    """Every subscription, in the order of registration, as the map lists it
    (docs/architecture.md): the event, the subscribing app and handler, and what it adds."""
    rows = []
    for event_type, handlers in _subscribers.items():
        for handler in handlers:
            does = summary(handler)
            # The handlers' docstrings open with the event's name: the map has a column for it.
            does = does.removeprefix(f"{event_type.__name__}: ")
            does = does[:1].upper() + does[1:]
            rows.append({"event": event_type.__name__,
                         "app": handler.__module__.split(".")[0],
                         "handler": f"{handler.__module__}.{handler.__qualname__}",
                         "does": does})
    return rows
