"""Signed SDK requests as apps_registry sees them (docs/fraud.md, "incorrect_signature"): an API
key created with `"signing": true` gets a secret, and the SDK pipeline checks each request's
signature. The fraud app owns both (the secrets, each app's signing mode) and hands them in at
start (fraud/apps.py): every app sits above apps_registry, so it takes them instead of
importing them. Without them, no key signs and nothing is checked.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Protocol


class RequestSigning(Protocol):
    def secret_issue(self, *, app_id: uuid.UUID, key_id: str) -> str:
        """A new secret for the key, stored by the owner, answered once."""

    def check(self, client: Any, meta: Mapping[str, Any], body: bytes) -> str | None:
        """Raises to refuse the request (enforce mode); else what is wrong with its signature
        (report mode) or None."""


_signing: RequestSigning | None = None


def register(signing: RequestSigning | None) -> None:
    """Use `signing` for signed keys' secrets and each request's check (None: nothing signs)."""
    global _signing
    _signing = signing


def current() -> RequestSigning | None:
    return _signing
