"""The fields every kind's rows share (docs/outbox.md, "What a kind keeps"), declared once.

`WorkRow` is a kind's work row: the fields the cycle moves (`state`, `attempts_made`,
`next_attempt_at`, `lease_expires_at`, `updated_at`, `completed_at`) and the two partial
indexes the sweep reads. `AttemptRow` is one try of it; `CallAttemptRow` one try that called
someone (the answer's status, body and time). Each kind adds its own facts, its foreign key from
the attempt to its work row (named after the work: `delivery`, `claim`, `run`), and its final
states, with `state_field(choices)` naming them.

Abstract: Django writes these fields into each kind's own migrations, so no migration depends on
this module and a kind's tables stay the kind's.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from outbox.kind import PENDING, SENDING

# Enough for every kind's longest state ("not_attributed").
STATE_LENGTH = 16


def state_field(choices) -> models.CharField:
    """A kind's `state`: the outbox's `pending` and `sending`, and the kind's final states."""
    return models.CharField(max_length=STATE_LENGTH, choices=choices, default=PENDING)


def sweep_indexes(prefix: str) -> list[models.Index]:
    """The sweep's two reads, both small: due pending rows, and expired leases. A kind whose
    table moved app (networks' Google claims) names them after its table, as they were built."""
    return [
        models.Index(fields=["next_attempt_at"], name=f"{prefix}_due",
                     condition=models.Q(state=PENDING)),
        models.Index(fields=["lease_expires_at"], name=f"{prefix}_lease",
                     condition=models.Q(state=SENDING)),
    ]


class WorkRow(models.Model):
    # The row's id is the idempotency key a kind hands its receiver: the same on every try.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    state = models.CharField(max_length=STATE_LENGTH, default=PENDING)
    # Counted by the claim; attempt numbers follow it (1, 2, ...). No kind tries 32,767 times.
    attempts_made = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        indexes = sweep_indexes("%(app_label)s_%(class)s")


class AttemptRow(models.Model):
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Why it did not succeed, in words; "" when it did. Never rendered as HTML.
    error_message = models.TextField(blank=True, default="")

    class Meta:
        abstract = True


class CallAttemptRow(AttemptRow):
    """A try that called someone: what came back, kept as plain text."""

    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        abstract = True
