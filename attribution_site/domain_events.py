"""In-process domain events: how tracking tells other apps what happened, in plain values.

`publish` runs each subscriber in two phases:
- `in_transaction` subscribers run at once, inside the transaction that recorded the fact, so
  they can write their own rows atomically with it (delivery creates its delivery rows here;
  if the install rolls back, so do they);
- `after_commit` subscribers run once that transaction has committed (observers, metrics,
  anything that leaves the process). Outside a transaction they run at once.
Subscribers register in their AppConfig.ready(). See docs/decisions.md.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import transaction

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


@dataclass(frozen=True)
class EventTracked:
    """One in-app event accepted from an SDK batch."""

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
Handler = Callable[[Sequence[Any]], None]


@dataclass
class _Registry:
    in_transaction: dict[type, list[Handler]] = field(default_factory=dict)
    after_commit: dict[type, list[Handler]] = field(default_factory=dict)


_registry = _Registry()


def subscribe(event_type: type, handler: Handler, *, phase: str = "after_commit") -> None:
    """Register `handler(events)`; it receives a list of events of one type per publication."""
    table = getattr(_registry, phase)
    handlers = table.setdefault(event_type, [])
    if handler not in handlers:
        handlers.append(handler)


def unsubscribe(event_type: type, handler: Handler) -> None:
    for table in (_registry.in_transaction, _registry.after_commit):
        if handler in table.get(event_type, []):
            table[event_type].remove(handler)


def publish(events: Sequence[DomainEvent]) -> None:
    """Hand events (all of one type) to subscribers; call inside the recording transaction."""
    if not events:
        return
    event_type = type(events[0])
    for handler in list(_registry.in_transaction.get(event_type, [])):
        handler(events)  # errors propagate: the fact and its consequences commit together
    for handler in list(_registry.after_commit.get(event_type, [])):
        transaction.on_commit(lambda h=handler: _safely(h, events))


def _safely(handler: Handler, events: Sequence[DomainEvent]) -> None:
    try:
        handler(events)
    except Exception:  # noqa: BLE001 - the fact is committed; an observer must not undo it
        logger.exception("after-commit subscriber %r failed", handler)
