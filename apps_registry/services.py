"""Writes for apps and API keys (spec: App endpoints, API key endpoints). The caches that keep
apps and keys follow every save and delete on their own (apps_registry/apps.py), so nothing
here tells them."""

from __future__ import annotations

import time
import uuid
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry import keys, linked_apps, request_signing
from apps_registry.models import ApiKey, App, Platform
from attribution_site.api.exceptions import Conflict, ValidationFailed
from attribution_site.model_update import model_update

IDENTIFIER_FIELD = {
    Platform.IOS: "bundle_id",
    Platform.ANDROID: "package_name",
    Platform.WEB: "domain",
}
UPDATABLE_APP_FIELDS = ("name", "app_store_url", "play_store_url", "apple_team_id",
                        "android_sha256_fingerprints", "url_scheme", "ios_fingerprinting",
                        "ip_retention_days", "raw_retention_days")
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
    """Apply `changes`; `linked_apps` (checked by the serializer) go to their owner
    (apps_registry/linked_apps.py), in the same transaction."""
    changes = dict(changes)
    linked = changes.pop("linked_apps", None)
    with transaction.atomic():
        model_update(instance=app, changes=changes, updatable=UPDATABLE_APP_FIELDS)
        if linked is not None:
            linked_apps.current().linked_apps_set(app=app, app_ids=linked)
    return app


def app_delete(*, app: App) -> None:
    """Delete the app and everything that belongs to it (its keys stop working), in one
    transaction."""
    with transaction.atomic():
        App.objects.filter(id=app.id).delete()


def api_key_create(*, app: App, name: str = "", permissions: list[str] | None = None,
                   rate_limit: int | None = None, expires_at: datetime | None = None,
                   kind: str = keys.KIND_SERVER,
                   allowed_origins: list[str] | None = None) -> tuple[ApiKey, str]:
    """The new key record and the full key, which is never available again. A web key
    (`kind` web) takes its origins, already in `keys.origin_parse`'s form, and only `write`."""
    if kind == keys.KIND_WEB:
        if app.platform != Platform.WEB:
            raise ValidationFailed("Invalid input: kind.", {"kind": [
                "Web keys are for apps of platform web; this app's platform is "
                f"{app.platform}."]})
        return _api_key_create(app=app, name=name, permissions=["write"],
                               rate_limit=rate_limit, expires_at=expires_at, kind=kind,
                               allowed_origins=list(allowed_origins or []))
    return _api_key_create(app=app, name=name, permissions=permissions,
                           rate_limit=rate_limit, expires_at=expires_at)


def api_key_create_signing(*, app: App, **fields) -> tuple[ApiKey, str, str]:
    """A key that signs its requests: the record, the full key and its signing secret, both
    never available again. Refused when no app handles signing (apps_registry alone)."""
    signing = request_signing.current()
    if signing is None:
        raise ValidationFailed("Invalid input: signing.", {"signing": [
            "Request signing is not available on this server."]})
    with transaction.atomic():
        record, full_key = _api_key_create(app=app, **fields)
        secret = signing.secret_issue(app_id=app.id, key_id=record.id)
    return record, full_key, secret


def _api_key_create(*, app: App, name: str = "", permissions: list[str] | None = None,
                    rate_limit: int | None = None, expires_at: datetime | None = None,
                    kind: str = keys.KIND_SERVER,
                    allowed_origins: list[str] | None = None) -> tuple[ApiKey, str]:
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
        kind=kind,
        allowed_origins=allowed_origins or [],
    )
    return record, generated.full_key


def api_key_revoke(*, key: ApiKey) -> None:
    """Revoke; the next request with the key, in any process, is refused."""
    key.revoked_at = timezone.now()
    key.save(update_fields=["revoked_at"])


def api_key_touch(*, key_id: str) -> None:
    """Record use, writing to the database at most once a minute per key and process. An
    update() sends no signal, and needs none: the key's caches do not keep `last_used_at`."""
    now = time.monotonic()
    if now - _last_used_written.get(key_id, -LAST_USED_WRITE_INTERVAL) < LAST_USED_WRITE_INTERVAL:
        return
    _last_used_written[key_id] = now
    ApiKey.objects.filter(id=key_id).update(last_used_at=timezone.now())
