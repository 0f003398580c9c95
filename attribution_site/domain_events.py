"""In-process domain events: how tracking tells other apps what happened, in plain values.

`publish` runs each subscriber in two phases:
- `in_transaction` subscribers run at once and add the rows that follow from the fact to the
  write batch that records it (attribution_site/write_batch.py), so those rows commit or roll
  back with it (delivery creates its delivery rows here); they schedule their own side effects
  with the batch's `after_commit`;
- `after_commit` subscribers run once the fact has committed (observers, metrics, anything
  that leaves the process).
Subscribers register in their AppConfig.ready(). See docs/decisions.md.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from attribution_site.write_batch import WriteBatch

logger = logging.getLogger(__name__)


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


DomainEvent = InstallAttributed | InstallReengaged | EventTracked
Handler = Callable[..., None]  # in_transaction: (events, batch); after_commit: (events)


@dataclass
class _Registry:
    in_transaction: dict[type, list[Handler]] = field(default_factory=dict)
    after_commit: dict[type, list[Handler]] = field(default_factory=dict)


_registry = _Registry()


def subscribe(event_type: type, handler: Handler, *, phase: str = "after_commit") -> None:
    """Register a handler; it receives a list of events of one type per publication, and an
    `in_transaction` handler also the WriteBatch to add its rows to."""
    table = getattr(_registry, phase)
    handlers = table.setdefault(event_type, [])
    if handler not in handlers:
        handlers.append(handler)


def unsubscribe(event_type: type, handler: Handler) -> None:
    for table in (_registry.in_transaction, _registry.after_commit):
        if handler in table.get(event_type, []):
            table[event_type].remove(handler)


def publish(events: Sequence[DomainEvent], *, batch: WriteBatch | None = None) -> None:
    """Hand events (all of one type) to subscribers.

    With `batch` (the one that writes the fact itself), subscribers add their rows to it and
    the caller executes it. Without, call this inside the transaction that recorded the fact:
    the subscribers' rows are written at once, in that transaction."""
    if not events:
        return
    own_batch = batch is None
    batch = WriteBatch() if own_batch else batch
    event_type = type(events[0])
    for handler in list(_registry.in_transaction.get(event_type, [])):
        handler(events, batch)  # errors propagate: the fact and its consequences go together
    for handler in list(_registry.after_commit.get(event_type, [])):
        batch.after_commit(lambda h=handler: _safely(h, events))
    if own_batch:
        batch.execute()


def _safely(handler: Handler, events: Sequence[DomainEvent]) -> None:
    try:
        handler(events)
    except Exception:  # noqa: BLE001 - the fact is committed; an observer must not undo it
        logger.exception("after-commit subscriber %r failed", handler)
