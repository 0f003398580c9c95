"""A web app's linked mobile apps as apps_registry sees them (docs/web.md, "Web to app"): the
`linked_apps` field of the app API. The web_to_app app owns them (its own table) and hands
itself in at start (web_to_app/apps.py): it sits above apps_registry, so it is handed in
instead of imported, as request signing is. Without it, apps have no linked apps and the field
is refused.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol


class LinkedApps(Protocol):
    def linked_apps_of(self, *, app_id: uuid.UUID) -> list[uuid.UUID]:
        """The ids of the app's linked apps, in the order they were given."""

    def linked_apps_problem(self, *, app: Any, app_ids: list[uuid.UUID]) -> str | None:
        """Why `app_ids` cannot be `app`'s linked apps, or None."""

    def linked_apps_set(self, *, app: Any, app_ids: list[uuid.UUID]) -> None:
        """Replace the app's linked apps."""


_linked: LinkedApps | None = None


def register(linked: LinkedApps | None) -> None:
    """Take the store of a web app's linked mobile apps, read and written through its API."""
    global _linked
    _linked = linked


def current() -> LinkedApps | None:
    return _linked
