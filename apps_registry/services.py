"""Writes for apps and API keys (spec: App endpoints, API key endpoints)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import replace
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry import keys, selectors
from apps_registry.models import ApiKey, App, Platform
from attribution_site.api.exceptions import Conflict
from attribution_site.model_update import model_update

logger = logging.getLogger(__name__)

IDENTIFIER_FIELD = {
    Platform.IOS: "bundle_id",
    Platform.ANDROID: "package_name",
    Platform.WEB: "domain",
}
UPDATABLE_APP_FIELDS = ("name", "app_store_url", "play_store_url", "apple_team_id",
                        "android_sha256_fingerprints", "url_scheme", "ios_fingerprinting")
LAST_USED_WRITE_INTERVAL = 60.0

_last_used_written: dict[str, float] = {}


def _identifier_conflict(platform: str, field: str) -> Conflict:
    message = f"An {platform} app with this {field} already exists in your organization."
    return Conflict(message, {field: [message]})


def app_create(*, organization_id: uuid.UUID, name: str, platform: str, **fields) -> App:
    field = IDENTIFIER_FIELD[Platform(platform)]
    identifier = fields.get(field)
    if App.objects.filter(organization_id=organization_id, platform=platform,
                          **{field: identifier}).exists():
        raise _identifier_conflict(platform, field)
    now = timezone.now()
    app = App(organization_id=organization_id, name=name, platform=platform,
              created_at=now, updated_at=now, **fields)
    try:
        with transaction.atomic():
            app.save(force_insert=True)
    except IntegrityError:
        raise _identifier_conflict(platform, field) from None
    return app


def app_update(*, app: App, changes: dict) -> App:
    if model_update(instance=app, changes=changes, updatable=UPDATABLE_APP_FIELDS):
        selectors.app_target_changed(app_id=app.id)
    return app


def app_delete(*, app: App) -> None:
    """Delete the app and everything that belongs to it, in one transaction."""
    key_ids = list(app.api_keys.values_list("id", flat=True))
    with transaction.atomic():
        App.objects.filter(id=app.id).delete()
        selectors.app_target_changed(app_id=app.id)
        transaction.on_commit(lambda: _forget_keys(key_ids))


def api_key_create(*, app: App, name: str = "", permissions: list[str] | None = None,
                   rate_limit: int | None = None,
                   expires_at: datetime | None = None) -> tuple[ApiKey, str]:
    """The new key record and the full key, which is never available again."""
    generated = keys.key_generate()
    record = ApiKey.objects.create(
        id=generated.key_id,
        app=app,
        name=name,
        key_prefix=generated.key_prefix,
        secret_hash=generated.secret_hash,
        permissions=sorted(set(permissions or ["write"])),
        rate_limit=rate_limit or settings.DEFAULT_KEY_RATE_LIMIT,
        expires_at=expires_at,
    )
    return record, generated.full_key


def api_key_revoke(*, key: ApiKey) -> None:
    """Revoke at once: every process reads keys through the shared cache, which we overwrite."""
    with transaction.atomic():
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        transaction.on_commit(lambda: _forget_keys([key.id]))


def _forget_keys(key_ids: list[str]) -> None:
    for key_id in key_ids:
        record = selectors.api_key_record(key_id=key_id)
        try:
            if record is None:
                cache.delete(selectors.key_cache_name(key_id))
            else:
                cache.set(selectors.key_cache_name(key_id), replace(record, revoked=True),
                          selectors.KEY_CACHE_SECONDS)
        except Exception:  # noqa: BLE001
            logger.error("could not mark key %s revoked in the cache", key_id, exc_info=True)
        # Only now: a process that drops its copy must find the revoked one when it reads again.
        selectors.api_key_forget(key_id=key_id)


def api_key_touch(*, key_id: str) -> None:
    """Record use, writing to the database at most once a minute per key and process."""
    now = time.monotonic()
    if now - _last_used_written.get(key_id, -LAST_USED_WRITE_INTERVAL) < LAST_USED_WRITE_INTERVAL:
        return
    _last_used_written[key_id] = now
    ApiKey.objects.filter(id=key_id).update(last_used_at=timezone.now())
