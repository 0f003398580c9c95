"""The `limit` query parameter shared by list endpoints: default 50, at most 500, else 400."""

from __future__ import annotations

from attribution_site.api.exceptions import ValidationFailed

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def limit_from_query(query_params, *, default: int = DEFAULT_LIMIT,
                     maximum: int = MAX_LIMIT) -> int:
    raw = query_params.get("limit")
    if raw is None or raw == "":
        return default
    try:
        limit = int(raw)
    except ValueError:
        raise ValidationFailed("Invalid input: limit.", {"limit": [
            "Must be an integer."]}) from None
    if not 1 <= limit <= maximum:
        raise ValidationFailed("Invalid input: limit.", {"limit": [
            f"Must be between 1 and {maximum}."]})
    return limit
