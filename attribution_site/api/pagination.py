"""The `limit` query parameter of list and log endpoints: default 50, 1 to 500, anything else a
400. One parser; each endpoint keeps the wording it has always answered with.
"""

from __future__ import annotations

from attribution_site.api.exceptions import ValidationFailed

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def limit_parse(raw: str | None, *, default: int = DEFAULT_LIMIT,
                maximum: int = MAX_LIMIT) -> int:
    """`default` when absent or empty; a ValueError saying what is wrong when it is not an
    integer from 1 to `maximum`."""
    if raw is None or raw == "":
        return default
    try:
        limit = int(raw)
    except ValueError:
        raise ValueError("Must be an integer.") from None
    if not 1 <= limit <= maximum:
        raise ValueError(f"Must be between 1 and {maximum}.")
    return limit


def limit_from_query(query_params, *, default: int = DEFAULT_LIMIT,
                     maximum: int = MAX_LIMIT) -> int:
    """The limit, or a 400 about it alone."""
    try:
        return limit_parse(query_params.get("limit"), default=default, maximum=maximum)
    except ValueError as exc:
        raise ValidationFailed("Invalid input: limit.", {"limit": [str(exc)]}) from None
