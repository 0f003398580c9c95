"""What a kind of outbound work declares to the outbox (docs/outbox.md, "Adding a kind").

A work row has the fields the cycle moves: `id`, `state` ("pending" and "sending" are the
outbox's; every other state is a final one of the kind), `attempts_made`, `next_attempt_at`,
`lease_expires_at`, `updated_at` and `completed_at`. An attempt row has a foreign key to its
work row, `number`, `started_at`, `finished_at` and `error_message`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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

    def timeout_seconds(self) -> float:
        return getattr(settings, self.timeout_setting)

    def grace_seconds(self) -> int:
        return getattr(settings, self.grace_setting)
