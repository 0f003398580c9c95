"""Helpers shared by the audit tests: entries written straight through the service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from audit.services import entry_record

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def entries_for(user, count: int, *, action: str = "postbacks.create", start=START,
                step=timedelta(minutes=1)):
    """`count` entries by `user`, a `step` apart from `start`, oldest first."""
    return [entry_record(organization_id=user.organization_id, actor_id=user.id,
                         actor_email=user.email, action=action, target=f"t{n}",
                         changes={"n": n}, ip="192.0.2.1", now=start + n * step)
            for n in range(count)]


__all__ = ["START", "entries_for"]
