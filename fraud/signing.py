"""SDK request signing (docs/fraud.md, "incorrect_signature"). Pure: standard library only, no
clock (the time is passed in).

The SDK sends `X-Signature-Timestamp: <unix seconds>` and
`X-Signature: v1=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>`, the scheme Stripe and
Standard Webhooks use: the timestamp inside the signed text makes a captured request useless
after MAX_AGE, and the version prefix lets a later scheme sit beside this one. Several
`v1=` values (comma or space separated) are accepted, for an SDK signing with two secrets
while one is rotated.
"""

from __future__ import annotations

import hashlib
import hmac
import re

VERSION = "v1"
MISSING, MALFORMED, WRONG, EXPIRED = "missing", "malformed", "wrong", "expired"
PROBLEMS = (MISSING, MALFORMED, WRONG, EXPIRED)
TIMESTAMP = re.compile(r"^[0-9]{1,12}$")


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of `timestamp + "." + body` under the secret."""
    message = timestamp.encode("ascii") + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def header(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Signature header an SDK sends."""
    return f"{VERSION}={signature(secret, timestamp, body)}"


def problem(*, secret: str, timestamp: str | None, signatures: str | None, body: bytes,
            now_seconds: int, max_age: int) -> str | None:
    """What is wrong with the request's signature, or None when it is good. A timestamp
    further than `max_age` from now either way is expired (a device clock ahead by more is
    refused like a replay)."""
    if not timestamp or not signatures:
        return MISSING
    timestamp = timestamp.strip()
    if not TIMESTAMP.match(timestamp):
        return MALFORMED
    offered = [value[len(VERSION) + 1:] for value in re.split(r"[,\s]+", signatures.strip())
               if value.startswith(f"{VERSION}=")]
    if not offered:
        return MALFORMED
    if abs(now_seconds - int(timestamp)) > max_age:
        return EXPIRED
    expected = signature(secret, timestamp, body)
    if any(hmac.compare_digest(expected, value.lower()) for value in offered):
        return None
    return WRONG
