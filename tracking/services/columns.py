"""Text as tracking's columns take it: what a device, an SDK or an ad network sent, made safe for
the database before any write of clicks, installs or a re-attribution stores it (no NUL, which
PostgreSQL refuses, and no more characters than the column holds).
"""

from __future__ import annotations


def column_text(value: str | None, limit: int) -> str:
    """Database-safe text: no NUL (PostgreSQL refuses it), cut to the column's length."""
    return (value or "").replace("\x00", "")[:limit]
