"""Command-line arguments the analytics commands share."""

from __future__ import annotations

import uuid

from django.core.management.base import CommandError

from apps_registry import selectors as app_selectors


def existing_app_id(text: str) -> uuid.UUID:
    """The id of an existing app, or a CommandError saying what is wrong with `text`."""
    try:
        app_id = uuid.UUID(text)
    except ValueError:
        raise CommandError(f"{text!r} is not an app id (a UUID)") from None
    if app_selectors.app_target(app_id=app_id) is None:
        raise CommandError(f"no app {app_id}")
    return app_id
