"""What an audit entry keeps of the fields a person sent (docs/teams.md, "Audit log"): every
field, with the value of a secret-like one replaced by `***`, uploaded files by their name and
size, and long text cut short. Pure: standard library only.

A field is secret-like by its name, whatever the endpoint, so a new endpoint's secret is masked
without being listed: a word of the name is one of SECRET_WORDS (`client_secret`, `dev_token`,
`password`, `credentials`, `otp`), the name ends in `key` or `keys` (`api_key`, `private_key`,
`decryption_key`, but not `key_id` or `key_prefix`), or the value carries a PEM block.
Masking by name over-masks a harmless field now and then (`join_key`); a list of the secrets
of each endpoint would under-mask the next one, and a leaked secret in a log kept for a year
is the worse mistake.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MASK = "***"
SECRET_WORDS = frozenset({
    "secret", "secrets", "token", "tokens", "password", "passwords", "passphrase", "passwd",
    "credential", "credentials", "otp", "pem", "authorization", "cookie", "recovery",
    "pin",
})
KEY_WORDS = frozenset({"key", "keys"})
# Django's form token says nothing about the change, and would be masked anyway.
DROPPED = frozenset({"csrfmiddlewaretoken"})
MAX_TEXT = 500
MAX_ITEMS = 100
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def name_words(name: str) -> list[str]:
    """`client_secret`, `clientSecret` and `client-secret` alike: ["client", "secret"]."""
    return [word.lower() for word in _WORD.findall(name)]


def is_secret_name(name: str) -> bool:
    words = name_words(name)
    return bool(words) and (bool(SECRET_WORDS.intersection(words)) or words[-1] in KEY_WORDS)


def masked(fields: Any) -> Any:
    """`fields` as JSON-ready values with every secret replaced by MASK."""
    return _plain(fields, depth=0)


def _plain(value: Any, *, depth: int) -> Any:
    if depth > 8:  # nothing a person types nests this deep; a cycle would never end
        return "…"
    if isinstance(value, Mapping):
        items = list(value.items())[:MAX_ITEMS]
        return {str(name): (MASK if is_secret_name(str(name)) else _plain(item, depth=depth + 1))
                for name, item in items if str(name) not in DROPPED}
    if isinstance(value, list | tuple):
        return [_plain(item, depth=depth + 1) for item in value[:MAX_ITEMS]]
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return _text(value)
    if hasattr(value, "read") and hasattr(value, "name"):  # an uploaded file
        return f"file {getattr(value, 'name', '')} ({getattr(value, 'size', '?')} bytes)"
    return _text(str(value))


def _text(value: str) -> str:
    if "-----BEGIN" in value:  # a key or certificate pasted into a field of any name
        return MASK
    if len(value) > MAX_TEXT:
        return f"{value[:MAX_TEXT]}… ({len(value)} characters)"
    return value


def form_fields(form) -> dict[str, Any]:
    """A console form (a QueryDict) as a dict: one value, or the list when a field repeats."""
    return {name: values[0] if len(values) == 1 else values for name, values in form.lists()}
