"""Fixed times of day for tests whose times span hours or days: whether two moments a few hours
apart fall on the same UTC day must not depend on when the suite runs (just after midnight, or
just before it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone


def last_noon() -> datetime:
    """12:00 UTC today, or yesterday before noon: a moment already past, with twelve hours of
    its UTC day on either side."""
    now = timezone.now()
    noon = now.astimezone(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    return noon if noon <= now else noon - timedelta(days=1)


def noon_days_ago(days: int) -> datetime:
    """12:00 UTC of the day `days` UTC days before today."""
    today = timezone.now().astimezone(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    return today - timedelta(days=days)
