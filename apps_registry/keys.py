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


# --- Web keys (docs/web.md, "Web keys") -----------------------------------------------------
# A server key is today's key: secret, sent by an app or a server in X-API-Key. A web key is
# public by design (it sits in a page's HTML): it calls only /api/v1/web/*, only from its
# origins, and reads nothing.
KIND_SERVER, KIND_WEB = "server", "web"
KINDS = (KIND_SERVER, KIND_WEB)
MAX_ORIGINS = 20
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_parse(value: str) -> tuple[str | None, str | None]:
    """(the origin as a browser writes it in `Origin`, None) or (None, what is wrong).

    Scheme, host and port, nothing else: `https://shop.example`, `http://127.0.0.1:8080`. A
    browser's `Origin` is lower case and leaves the scheme's default port out, so the stored
    form is the same and the comparison is an exact string match."""
    from urllib.parse import urlsplit

    if not isinstance(value, str) or not value.strip():
        return None, "Must be an origin such as https://shop.example."
    text = value.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None, "The port is not a number from 1 to 65535."
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        return None, "The scheme must be http or https."
    if not parts.hostname or "*" in text:
        return None, "Must name one host (no wildcard)."
    if parts.username is not None or parts.password is not None:
        return None, "Must not contain a user name or password."
    if parts.path not in ("", "/") or parts.query or parts.fragment or text.endswith("?") \
            or text.endswith("#"):
        return None, "Scheme, host and port only: no path, query or fragment."
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}", None
    return f"{scheme}://{host}:{port}", None


def origin_allowed(origin: str | None, allowed_origins) -> bool:
    """Whether a request's `Origin` header is one of the key's origins (exact match)."""
    return bool(origin) and origin in allowed_origins
