"""Reads of destinations and runs (docs/export.md): an organization's destinations with their
last run, a destination's runs, and the destinations that fell behind."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet

from raw_export import policy
from raw_export.models import Destination, Run


def destinations_for_organization(*, organization_id: uuid.UUID) -> QuerySet[Destination]:
    return Destination.objects.filter(organization_id=organization_id).order_by("created_at")


def destination_for_organization(*, organization_id: uuid.UUID,
                                 destination_id) -> Destination | None:
    return Destination.objects.filter(organization_id=organization_id,
                                      id=destination_id).first()


def last_runs(*, destination_ids: list[uuid.UUID]) -> dict[uuid.UUID, Run]:
    """Each destination's newest run (one query per destination: an organization has a few)."""
    runs = {}
    for destination_id in destination_ids:
        run = Run.objects.filter(destination_id=destination_id).order_by("-created_at").first()
        if run is not None:
            runs[destination_id] = run
    return runs


def runs_of(*, destination_id: uuid.UUID, limit: int) -> list[Run]:
    return list(Run.objects.filter(destination_id=destination_id)
                .order_by("-created_at")[:limit])


# /readyz names at most this many: enough to act on, and the probe stays small.
BEHIND_LISTED = 20


@dataclass(frozen=True)
class Behind:
    id: uuid.UUID
    name: str
    lag: timedelta
    written_up_to: datetime | None
    last_error: str


def destinations_behind(*, now: datetime) -> list[Behind]:
    limit = timedelta(seconds=settings.RAW_EXPORT_BEHIND_WARNING_SECONDS)
    cutoff = now - limit
    late = []
    candidates = Destination.objects.filter(
        Q(written_up_to__lt=cutoff) | Q(written_up_to__isnull=True, created_at__lt=cutoff),
    ).only("id", "name", "written_up_to", "created_at", "last_error").order_by("created_at")
    for destination in candidates[:BEHIND_LISTED]:
        lag = policy.behind(written_up_to=destination.written_up_to,
                            created_at=destination.created_at, now=now, limit=limit)
        if lag is not None:
            late.append(Behind(destination.id, destination.name, lag,
                               destination.written_up_to, destination.last_error))
    return late
