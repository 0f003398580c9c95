"""Reads of apps and keys. Other apps use these functions and the plain values they return."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Q, QuerySet

from apps_registry.models import ApiKey, App
from attribution_site.local_cache import LocalCache

logger = logging.getLogger(__name__)

KEY_CACHE_SECONDS = 300


@dataclass(frozen=True)
class AppTarget:
    """What the click redirector, the links' public side and the install path need to know of
    an app: everything they keep of it, so an edit of the app drops it all at once."""

    id: uuid.UUID
    organization_id: uuid.UUID
    name: str
    platform: str
    app_store_url: str | None
    play_store_url: str | None
    domain: str | None
    url_scheme: str | None
    ios_fingerprinting: str  # the install waterfall's iOS policy (tracking/attribution.py)


@dataclass(frozen=True)
class KeyRecord:
    """A key as the SDK authentication sees it; cached, so plain and picklable."""

    key_id: str
    app_id: uuid.UUID
    secret_hash: str
    permissions: tuple[str, ...]
    rate_limit: int
    expires_at: datetime | None
    revoked: bool
    # Defaults: a record cached by an older process (before web keys) reads as a server key.
    kind: str = "server"
    allowed_origins: tuple[str, ...] = ()


def apps_for_organization(*, organization_id: uuid.UUID) -> QuerySet[App]:
    return App.objects.filter(organization_id=organization_id).order_by("-created_at", "id")


def app_for_organization(*, organization_id: uuid.UUID, app_id) -> App | None:
    """The app if it exists and belongs to the organization; annotated with its key count."""
    try:
        app_uuid = app_id if isinstance(app_id, uuid.UUID) else uuid.UUID(str(app_id))
    except ValueError:
        return None
    return (
        App.objects.filter(id=app_uuid, organization_id=organization_id)
        .annotate(api_key_count=Count("api_keys", filter=Q(api_keys__revoked_at__isnull=True)))
        .first()
    )


# The click redirector asks on every click, the install path for every iOS install without
# tracking consent; an app's store URLs and policy change a few times in its life.
# Every save or delete of an App calls `app_target_changed` (wired in apps_registry/apps.py),
# which drops the copy in every process (attribution_site/local_cache.py).
_app_targets = LocalCache("app-targets", ttl=30.0)


def app_target(*, app_id: uuid.UUID) -> AppTarget | None:
    """The app's redirect facts, from this process's cache when it has them."""
    return _app_targets.get(app_id, lambda: _app_target_uncached(app_id))


def app_target_changed(*, app_id: uuid.UUID) -> None:
    """The app changed or is gone: every process reads it again. Dropped at once here and
    everywhere again once the change commits, so no process keeps a copy read before it."""
    _app_targets.invalidate(app_id)
    transaction.on_commit(lambda: _app_targets.invalidate(app_id))


def _app_target_uncached(app_id: uuid.UUID) -> AppTarget | None:
    row = (
        App.objects.filter(id=app_id)
        .values_list("id", "organization_id", "name", "platform", "app_store_url",
                     "play_store_url", "domain", "url_scheme", "ios_fingerprinting")
        .first()
    )
    return AppTarget(*row) if row else None


def api_keys_for_app(*, app_id: uuid.UUID) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(app_id=app_id, revoked_at__isnull=True).order_by(
        "-created_at", "id")


def api_key_for_organization(*, organization_id: uuid.UUID, key_id: str) -> ApiKey | None:
    return ApiKey.objects.filter(
        id=key_id, app__organization_id=organization_id, revoked_at__isnull=True
    ).first()


def key_cache_name(key_id: str) -> str:
    return f"apikey:{key_id}"


# Each process keeps the keys it has seen for a few seconds; every save or delete of a key
# drops them in every process at once (`api_key_changed`, wired in apps_registry/apps.py).
_local_keys = LocalCache("api-keys", ttl=30.0)


def api_key_record(*, key_id: str) -> KeyRecord | None:
    """The key by id, from this process's copy, else the shared cache, else the database."""
    return _local_keys.get(key_id, lambda: _api_key_record_shared(key_id))


def api_key_changed(key: ApiKey, deleted: bool) -> None:
    """The key was saved (revoked, expired, its permissions or rate limit edited) or deleted,
    by whatever writer. Once the change commits, the shared cache holds the key as it now is
    (a deleted key as revoked) and only then does every process drop its copy: a process that
    reads again must find the new record, and a reader racing the change, which only `add`s,
    cannot put the old one back."""
    key_id = key.id
    gone = _record_of(key, revoked=True) if deleted else None
    _local_keys.invalidate(key_id)
    transaction.on_commit(lambda: _api_key_refresh(key_id, gone))


def _api_key_refresh(key_id: str, gone: KeyRecord | None) -> None:
    record = gone or _api_key_record_stored(key_id)
    name = key_cache_name(key_id)
    try:
        if record is None:  # deleted again since; nothing to keep
            cache.delete(name)
        else:
            cache.set(name, record, KEY_CACHE_SECONDS)
    except Exception:  # noqa: BLE001 - the processes still drop their copies
        logger.error("could not write key %s to the shared cache", key_id, exc_info=True)
    _local_keys.invalidate(key_id)


def _api_key_record_shared(key_id: str) -> KeyRecord | None:
    """Through the shared cache; revocation overwrites the cached copy."""
    name = key_cache_name(key_id)
    try:
        record = cache.get(name)
    except Exception:  # noqa: BLE001 - a cache outage falls back to the database
        record = None
    if record is not None:
        return record
    record = _api_key_record_stored(key_id)
    if record is None:
        return None
    try:
        # add, not set: a change that committed meanwhile wrote its copy and must win.
        cache.add(name, record, KEY_CACHE_SECONDS)
    except Exception:  # noqa: BLE001
        pass
    return record


def _api_key_record_stored(key_id: str) -> KeyRecord | None:
    row = (
        ApiKey.objects.filter(id=key_id)
        .values_list("id", "app_id", "secret_hash", "permissions", "rate_limit", "expires_at",
                     "revoked_at", "kind", "allowed_origins")
        .first()
    )
    if row is None:
        return None
    return KeyRecord(key_id=row[0], app_id=row[1], secret_hash=row[2],
                     permissions=tuple(row[3]), rate_limit=row[4], expires_at=row[5],
                     revoked=row[6] is not None, kind=row[7],
                     allowed_origins=tuple(row[8] or ()))


def _record_of(key: ApiKey, *, revoked: bool) -> KeyRecord:
    return KeyRecord(key_id=key.id, app_id=key.app_id, secret_hash=key.secret_hash,
                     permissions=tuple(key.permissions), rate_limit=key.rate_limit,
                     expires_at=key.expires_at, revoked=revoked, kind=key.kind,
                     allowed_origins=tuple(key.allowed_origins or ()))


def existing_app_ids(*, app_ids: Iterable[uuid.UUID] | None = None) -> set[uuid.UUID]:
    """Which of these app ids still exist (every app's id when none are given)."""
    apps = App.objects.all() if app_ids is None else App.objects.filter(id__in=list(app_ids))
    return set(apps.values_list("id", flat=True))


@dataclass(frozen=True)
class RetentionLimits:
    """An app's retention limits (retention/policy.py reads them; docs/privacy.md)."""

    app_id: uuid.UUID
    ip_retention_days: int
    raw_retention_days: int
    created_at: datetime


def app_retention_limits() -> list[RetentionLimits]:
    """Every app's limits: what retention's beat run enforces and /readyz checks."""
    return [RetentionLimits(*row) for row in App.objects.order_by("created_at").values_list(
        "id", "ip_retention_days", "raw_retention_days", "created_at")]
