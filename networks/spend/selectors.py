"""Reads of ad spend connections and pulls, for the API and the console (which show what is
set, never a secret)."""

from __future__ import annotations

import uuid

from networks.models import CostPull, SpendConnection

RECENT_PULLS = 20


def connection_of(*, app_id: uuid.UUID, network: str) -> SpendConnection | None:
    return SpendConnection.objects.filter(app_id=app_id, network=network).first()


def connections_of(*, app_id: uuid.UUID) -> dict[str, SpendConnection]:
    return {c.network: c for c in SpendConnection.objects.filter(app_id=app_id)}


def pulls_of(*, connection: SpendConnection, limit: int = RECENT_PULLS) -> list[CostPull]:
    return list(CostPull.objects.filter(connection=connection).order_by("-created_at")[:limit])


def last_pull(*, connection: SpendConnection) -> CostPull | None:
    return CostPull.objects.filter(connection=connection).order_by("-created_at").first()
