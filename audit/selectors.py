"""Reads of the audit log: an organization's entries, newest first, a page at a time (keyset
paging on the moment and the id, so a page costs the same deep in a long log)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from audit.models import Entry

Position = tuple[datetime, int]


@dataclass(frozen=True)
class EntryFilter:
    actor_id: uuid.UUID | None = None
    actor_email: str | None = None
    action: str | None = None  # exact, or every action of a resource when it has no dot
    since: datetime | None = None  # inclusive
    until: datetime | None = None  # exclusive


@dataclass(frozen=True)
class EntryPage:
    entries: list[Entry]
    next_position: Position | None  # where the next page starts; None on the last


def entries_page(*, organization_id: uuid.UUID, filters: EntryFilter, limit: int,
                 before: Position | None = None) -> EntryPage:
    rows = Entry.objects.filter(organization_id=organization_id)
    if filters.actor_id is not None:
        rows = rows.filter(actor_id=filters.actor_id)
    if filters.actor_email:
        rows = rows.filter(actor_email__iexact=filters.actor_email)
    if filters.action:
        rows = (rows.filter(action=filters.action) if "." in filters.action
                else rows.filter(action__startswith=f"{filters.action}."))
    if filters.since is not None:
        rows = rows.filter(created_at__gte=filters.since)
    if filters.until is not None:
        rows = rows.filter(created_at__lt=filters.until)
    if before is not None:
        moment, entry_id = before
        rows = rows.filter(Q(created_at__lt=moment) | Q(created_at=moment, id__lt=entry_id))
    entries = list(rows.order_by("-created_at", "-id")[:limit + 1])
    if len(entries) <= limit:
        return EntryPage(entries=entries, next_position=None)
    last = entries[limit - 1]
    return EntryPage(entries=entries[:limit], next_position=(last.created_at, last.id))
