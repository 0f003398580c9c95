"""What a kind of outbound work declares to the outbox, and the registry of kinds
(docs/outbox.md, "Adding a kind").

A work row has the fields the cycle moves (outbox.models.WorkRow): `id`, `state` ("pending" and
"sending" are the outbox's; every other state is a final one of the kind), `attempts_made`,
`next_attempt_at`, `lease_expires_at`, `updated_at` and `completed_at`. An attempt row
(outbox.models.AttemptRow) has a foreign key to its work row, `number`, `started_at`,
`finished_at` and `error_message`.

Each kind declares itself once, in its app's `enqueue.py`, with `kind_register(Kind(...))`; the
outbox app imports every app's `enqueue` module when Django starts (outbox/apps.py), so the one
sweep and `describe()` see every kind in every process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models

PENDING = "pending"
SENDING = "sending"


@dataclass(frozen=True)
class Kind:
    name: str  # how the logs name one row: "delivery", "Apple Ads claim"
    work_model: type[models.Model]
    attempt_model: type[models.Model]
    attempt_of: str  # the attempt's foreign key to its work row
    send_task: str  # the registered name of the task that tries one row, given its id
    timeout_setting: str  # the setting: seconds one try may take (the lease follows from it)
    grace_setting: str  # the setting: how long a due row waits for its message
    # A row whose worker was lost, given back: the fields of its final state when the kind
    # gives it up now, or None to try it again. Required, so no kind can forget the rule.
    exhausted: Callable[[Any, datetime], Mapping[str, Any] | None]
    # The registered name of a task taking a list of ids: one message for many rows.
    batch_task: str | None = None
    # Fields, besides error_message and finished_at, that close an interrupted attempt.
    interrupted_fields: Mapping[str, Any] = field(default_factory=dict)
    sweep_batch: int = 1000
    # Called in the sweep's transaction with the rows it gave up (their final fields written),
    # for a kind whose give-up must change more than its row: a privacy request that fails
    # tells its controller.
    given_up: Callable[[Sequence[Any], datetime], None] | None = None
    # Called after each sweep of the kind: what the kind checks or prunes once a minute
    # besides its rows (delivery warns of overdue deliveries).
    upkeep: Callable[[datetime], None] | None = None

    def timeout_seconds(self) -> float:
        return getattr(settings, self.timeout_setting)

    def grace_seconds(self) -> int:
        return getattr(settings, self.grace_setting)


_registered: dict[str, Kind] = {}


def kind_register(kind: Kind) -> Kind:
    """Add a kind to the registry the sweep walks; returns it, for the declaring line.
    Registering a kind of the same name again replaces it (a module reloaded)."""
    _registered[kind.name] = kind
    return kind


def kinds() -> tuple[Kind, ...]:
    """Every registered kind, in the order the apps declared them."""
    return tuple(_registered.values())


def describe() -> list[dict[str, Any]]:
    """The registered kinds as the map lists them (docs/architecture.md)."""
    return [{"name": kind.name,
             "app": kind.work_model._meta.app_label,
             "work": kind.work_model._meta.db_table,
             "attempts": kind.attempt_model._meta.db_table,
             "task": kind.batch_task or kind.send_task,
             "timeout_setting": kind.timeout_setting,
             "grace_setting": kind.grace_setting}
            for kind in kinds()]
