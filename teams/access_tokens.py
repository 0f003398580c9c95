"""Personal access tokens: a person's own tokens for scripts, made, listed, deleted, and the
check behind `Authorization: Bearer pat_…` (docs/teams.md, "Personal access tokens").

A token carries no role of its own: it lets its person in with the role their user row has
now. It stops when the person is removed (the row cascades), when their role changes (the
`auth_version` it was made under is no longer theirs), when it expires or is deleted.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Q

from accounts.models import User
from attribution_site.api.exceptions import NotFound
from teams import credentials
from teams.models import AccessToken

NO_SUCH_TOKEN = "Access token not found."


@dataclass(frozen=True)
class Issued:
    access_token: AccessToken
    token: str  # shown once


def access_token_create(*, user: User, name: str, expires_in_days: int | None = None,
                        now: datetime) -> Issued:
    token = credentials.access_token_new()
    record = AccessToken.objects.create(
        user=user, name=name, prefix=credentials.shown_prefix(token),
        token_digest=credentials.digest(token), auth_version=user.auth_version, created_at=now,
        expires_at=credentials.access_token_expiry(now=now, days=expires_in_days))
    return Issued(access_token=record, token=token)


def access_tokens_of(*, user: User, now: datetime):
    """The person's tokens that still work, newest first (the ones a role change or the clock
    ended wait for beat's prune but are never shown)."""
    return AccessToken.objects.filter(user=user, auth_version=user.auth_version,
                                      expires_at__gt=now).order_by("-created_at", "name")


def access_token_delete(*, user: User, token_id: uuid.UUID) -> None:
    deleted, _ = AccessToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound(NO_SUCH_TOKEN)


def access_token_user(*, token: str, now: datetime) -> User | None:
    """The person a presented token lets in, None when it does not. One query (the token with
    its user); `last_used_at` is written at most once a minute per token, by a conditional
    UPDATE, so concurrent requests in several processes do not each write it."""
    record = (AccessToken.objects.select_related("user")
              .filter(token_digest=credentials.digest(token)).first())
    if record is None or not credentials.access_token_holds(
            expires_at=record.expires_at, issued_version=record.auth_version,
            user_version=record.user.auth_version, user_active=record.user.is_active, now=now):
        return None
    if credentials.last_use_due(last_used_at=record.last_used_at, now=now):
        AccessToken.objects.filter(pk=record.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - credentials.LAST_USE_EVERY),
        ).update(last_used_at=now)
    return record.user


def access_tokens_prune(*, now: datetime) -> int:
    """Delete the tokens that can no longer work: expired, or made before a role change."""
    ended = AccessToken.objects.filter(
        Q(expires_at__lte=now) | ~Q(auth_version=F("user__auth_version")))
    deleted, _ = AccessToken.objects.filter(pk__in=list(ended.values_list("pk", flat=True))
                                            ).delete()
    return deleted
