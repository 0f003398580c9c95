"""The secrets of invitations and personal access tokens, and the rules on their lifetimes
(docs/teams.md, "Invitations", "Personal access tokens"). Pure: standard library only, the
time passed in.

A secret is shown to its person once and stored as its SHA-256 only: the secrets are 256 random
bits, so a fast hash is enough (nothing to guess from the digest), and a digest is what a
lookup by a unique index needs.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

ACCESS_TOKEN_PREFIX = "pat_"
PREFIX_SHOWN = len(ACCESS_TOKEN_PREFIX) + 8  # what the list shows to tell tokens apart
INVITATION_LIFETIME = timedelta(days=7)
ACCESS_TOKEN_DAYS_MIN, ACCESS_TOKEN_DAYS_MAX = 1, 365
ACCESS_TOKEN_DAYS_DEFAULT = 90
LAST_USE_EVERY = timedelta(minutes=1)


def invitation_token_new() -> str:
    return secrets.token_urlsafe(32)


def access_token_new() -> str:
    return ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def is_access_token(credential: str) -> bool:
    """Whether a Bearer credential is a personal access token, not a JWT."""
    return credential.startswith(ACCESS_TOKEN_PREFIX)


def shown_prefix(token: str) -> str:
    return token[:PREFIX_SHOWN]


def invitation_expiry(*, now: datetime) -> datetime:
    return now + INVITATION_LIFETIME


def access_token_expiry(*, now: datetime, days: int | None) -> datetime:
    return now + timedelta(days=ACCESS_TOKEN_DAYS_DEFAULT if days is None else days)


def last_use_due(*, last_used_at: datetime | None, now: datetime) -> bool:
    """Whether a token's `last_used_at` is worth a write: at most one a minute per token."""
    return last_used_at is None or now - last_used_at >= LAST_USE_EVERY


def access_token_holds(*, expires_at: datetime, issued_version: int, user_version: int,
                       user_active: bool, now: datetime) -> bool:
    """Whether a stored token still lets its person in: not expired, the person active, and
    their role unchanged since it was made (docs/teams.md, "Revocation")."""
    return user_active and now < expires_at and issued_version == user_version
