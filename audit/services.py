"""Writes of the audit log (docs/teams.md, "Audit log"): an entry added, a token's address
noted, old entries deleted by age. There is no function that changes or deletes one entry:
the log is append-only through the service, and the admin shows it read-only.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction

from audit.models import Entry, TokenAddress

TOKEN_NEW_IP = "auth.token_new_ip"
# How long a process trusts that a token's address is on record (a cache entry per pair):
# a known pair costs no query for that long.
KNOWN_ADDRESS_SECONDS = 3600
PRUNE_BATCH = 5000


def entry_record(*, organization_id: uuid.UUID | None, actor_id: uuid.UUID | None,
                 actor_email: str, action: str, target: str = "",
                 changes: dict[str, Any] | None = None, ip: str | None,
                 now: datetime) -> Entry:
    return Entry.objects.create(
        organization_id=organization_id, actor_id=actor_id, actor_email=actor_email[:254],
        action=action[:100], target=target[:100], changes=changes or {}, ip=ip or None,
        created_at=now)


def token_use_note(*, token_digest: str, ip: str, organization_id: uuid.UUID,
                   actor_id: uuid.UUID, actor_email: str, kind: str,
                   now: datetime) -> Entry | None:
    """Note that the credential with this digest was used from `ip`. Its first address is
    where it starts (the login or the token's creation is in the log already); the first use
    from any further address is an entry. Returns that entry, else None."""
    cache_key = f"audit:token-address:{token_digest}:{ip}"
    if _cache_get(cache_key):
        return None
    known = set(TokenAddress.objects.filter(token_digest=token_digest)
                .values_list("ip", flat=True))
    entry = None
    if ip not in known:
        try:
            with transaction.atomic():
                TokenAddress.objects.create(token_digest=token_digest, ip=ip, first_seen_at=now)
        except IntegrityError:
            pass  # a concurrent request from the same address noted it first
        else:
            if known:
                entry = entry_record(
                    organization_id=organization_id, actor_id=actor_id,
                    actor_email=actor_email, action=TOKEN_NEW_IP, target="",
                    changes={"credential": kind, "earlier_ips": sorted(known)[:20]},
                    ip=ip, now=now)
    _cache_set(cache_key)
    return entry


# The cache only saves queries: without it every use is checked against the table.
def _cache_get(key: str) -> bool:
    try:
        return bool(cache.get(key))
    except Exception:  # noqa: BLE001 - any cache failure means "not known", never a 500
        return False


def _cache_set(key: str) -> None:
    try:
        cache.set(key, 1, timeout=KNOWN_ADDRESS_SECONDS)
    except Exception:  # noqa: BLE001 - the next use asks the table again
        pass


def entries_prune(*, now: datetime, retention_days: int) -> int:
    """Delete entries (and tokens' addresses) older than `retention_days`, in batches so no
    statement holds the table long; the number of entries deleted."""
    cutoff = now - timedelta(days=retention_days)
    deleted = 0
    while True:
        ids = list(Entry.objects.filter(created_at__lt=cutoff)
                   .values_list("id", flat=True)[:PRUNE_BATCH])
        if not ids:
            break
        deleted += Entry.objects.filter(id__in=ids).delete()[0]
    TokenAddress.objects.filter(first_seen_at__lt=cutoff).delete()
    return deleted
