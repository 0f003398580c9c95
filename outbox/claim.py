"""Claiming a row (docs/outbox.md, "Claim"): a worker may try a row only when it is pending and
due, and only the caller whose conditional UPDATE moves it to "sending" does. The same UPDATE
counts the attempt and sets the lease, and the attempt row is written in the same short
transaction, with no network in it. A duplicated message therefore sends nothing twice.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import models, transaction
from django.db.models import F

from outbox import timing
from outbox.kind import PENDING, SENDING, Kind


def work_due(kind: Kind, work_id: Any, *, now: datetime,
             queryset: models.QuerySet | None = None) -> Any | None:
    """The row if it is pending and due: None when it is sent already, given up, held by
    another worker, or a duplicate message came ahead of its retry schedule."""
    rows = queryset if queryset is not None else kind.work_model.objects.all()
    row = rows.filter(pk=work_id).first()
    if row is None or row.state != PENDING:
        return None
    if row.next_attempt_at is not None and row.next_attempt_at > now:
        return None
    return row


def work_claim(kind: Kind, row: Any, /, *, now: datetime,
               **attempt_fields: Any) -> Any | None:
    """Take `row` for this worker and open its attempt (numbered 1, 2, ... per row), or None
    when another caller took it first."""
    lease = timedelta(seconds=timing.lease_seconds(kind.timeout_seconds()))
    work = kind.work_model.objects
    with transaction.atomic():
        taken = work.filter(pk=row.pk, state=PENDING, next_attempt_at__lte=now).update(
            state=SENDING, attempts_made=F("attempts_made") + 1, lease_expires_at=now + lease,
            updated_at=now)
        if not taken:
            return None
        number = work.values_list("attempts_made", flat=True).get(pk=row.pk)
        return kind.attempt_model.objects.create(
            **{kind.attempt_of: row}, number=number, started_at=now, **attempt_fields)
