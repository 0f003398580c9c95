"""API key format and hashing (spec: API key). Pure: standard library only.

A key reads `ak_{keyId}_{secret}`. The key id is the record's public identifier; the secret is
160 random bits, of which only a SHA-256 digest is stored. A slow password hash would add
nothing: with that much entropy the secret cannot be guessed from its digest, and a fast digest
keeps the SDK hot path cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

PREFIX = "ak"
KEY_ID_BYTES = 8  # 16 hex characters
SECRET_BYTES = 20  # 160 bits
DISPLAY_CHARS = 12
# Any of these lets a key report installs and events (and ask for conversion values); `read`
# alone does not (spec: Authentication; the SDK endpoints write).
SDK_PERMISSIONS = ("write", "admin")


@dataclass(frozen=True)
class GeneratedKey:
    key_id: str
    secret: str
    full_key: str
    secret_hash: str
    key_prefix: str


def key_generate() -> GeneratedKey:
    key_id = secrets.token_hex(KEY_ID_BYTES)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    full_key = f"{PREFIX}_{key_id}_{secret}"
    return GeneratedKey(key_id=key_id, secret=secret, full_key=full_key,
                        secret_hash=secret_hash(secret), key_prefix=key_display(full_key))


def key_parse(full_key: str) -> tuple[str, str] | None:
    """(key_id, secret) of a well-formed key, else None."""
    parts = full_key.split("_", 2)
    if len(parts) != 3 or parts[0] != PREFIX:
        return None
    key_id, secret = parts[1], parts[2]
    if len(key_id) != KEY_ID_BYTES * 2 or not secret or len(secret) > 128:
        return None
    try:
        int(key_id, 16)
    except ValueError:
        return None
    return key_id, secret


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(secret_hash(secret), stored_hash)


def permits_sdk_calls(permissions) -> bool:
    return any(permission in SDK_PERMISSIONS for permission in permissions)


def usable_by_sdk(*, permissions, expires_at: datetime | None, now: datetime) -> bool:
    """Whether an active key would be accepted by the SDK endpoints at `now`, signatures
    aside (`sdk_refusal`)."""
    return sdk_refusal(permissions=permissions, expires_at=expires_at, now=now, signs=False,
                       signatures_required=False) is None


EXPIRED, NO_SDK_PERMISSION, CANNOT_SIGN = "expired", "no_sdk_permission", "cannot_sign"


def sdk_refusal(*, permissions, expires_at: datetime | None, now: datetime, signs: bool,
                signatures_required: bool) -> str | None:
    """Why the SDK endpoints would refuse an active key's requests at `now`, or None when
    they take them. An app that requires signed requests (its signing mode is enforce,
    docs/fraud.md) refuses every request of a key without a signing secret."""
    if expires_at is not None and expires_at <= now:
        return EXPIRED
    if not permits_sdk_calls(permissions):
        return NO_SDK_PERMISSION
    if signatures_required and not signs:
        return CANNOT_SIGN
    return None


def key_display(full_key: str) -> str:
    return full_key[: len(PREFIX) + 1 + DISPLAY_CHARS] + "…"
