"""Writes of fraud protection: an app's settings, a key's signing secret, the count of
requests refused for their signature, and beat's per-source click-flood flags."""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections.abc import Mapping
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from attribution_site.api.exceptions import Unauthorized
from attribution_site.model_update import model_update
from attribution_site.secrets import (
    SDK_REQUEST_SIGNING,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from fraud import selectors, signing, verdict
from fraud.models import AppFraudSettings, BotClicks, SignatureRefusal, SigningSecret, SourceFlag

logger = logging.getLogger(__name__)

SIGNING_SECRET_BYTES = 32
# What FraudSettingsBody may change: every setting, never the row's app.
UPDATABLE_SETTINGS = (
    "engagement_injection_mode", "ctit_anomalies_mode", "ctit_floor_seconds",
    "too_many_engagements_mode", "too_many_engagements_per_hour", "click_flood_mode",
    "anonymous_traffic_mode", "listed_networks", "bots_mode", "test_devices", "signing_mode")
SIGNATURE_MESSAGES = {
    signing.MISSING: "This app requires signed requests: X-Signature-Timestamp and "
                     "X-Signature are missing.",
    signing.MALFORMED: "X-Signature-Timestamp must be unix seconds and X-Signature "
                       "v1=<hex HMAC-SHA256>.",
    signing.WRONG: "X-Signature does not match the request.",
    signing.EXPIRED: "X-Signature-Timestamp is too far from now.",
}


def settings_update(*, app_id: uuid.UUID, changes: dict) -> selectors.FraudSettings:
    """Store the fields in `changes` (validated), the others kept or defaulted."""
    with transaction.atomic():
        row, _ = AppFraudSettings.objects.select_for_update().get_or_create(app_id=app_id)
        model_update(instance=row, changes=changes, updatable=UPDATABLE_SETTINGS)
    return selectors.settings_from_row(row)


def signing_secret_create(*, app_id: uuid.UUID, key_id: str) -> str:
    """A new signing secret for the key: 32 random bytes as hex (the HMAC key is this text's
    UTF-8 bytes), answered once and stored encrypted."""
    secret = secrets.token_hex(SIGNING_SECRET_BYTES)
    SigningSecret.objects.create(
        key_id=key_id, app_id=app_id,
        secret_encrypted=secret_encrypt(secret, purpose=SDK_REQUEST_SIGNING))
    return secret


def signature_refusal_count(*, app_id: uuid.UUID, day: date, sub_reason: str) -> None:
    """One more request refused for its signature."""
    _count(SignatureRefusal, "refusals", app_id=app_id, day=day, sub_reason=sub_reason)


def bot_click_count(*, app_id: uuid.UUID, day: date, media_source: str, mode: str) -> None:
    """One more click from a bot or crawler, blocked (not recorded) or flagged."""
    _count(BotClicks, "clicks", app_id=app_id, day=day, media_source=media_source[:255],
           mode=mode)


def _count(model, field: str, **key) -> None:
    """Add one to the counter row of `key`: an UPDATE, else the day's first row."""
    if model.objects.filter(**key).update(**{field: F(field) + 1}):
        return
    try:
        with transaction.atomic():
            model.objects.create(**key, **{field: 1})
    except IntegrityError:  # another request created it in between
        model.objects.filter(**key).update(**{field: F(field) + 1})


def bots_click_verdict(*, app_id: uuid.UUID, media_source: str, bot: bool) -> bool:
    """Whether a click may be recorded under the app's bots rule; a bot's click is counted
    (flag: recorded too; block: not). `bot` is tracking's one list's answer."""
    if not bot:
        return True
    mode = selectors.settings_of(app_id).bots_mode
    if mode == verdict.OFF:
        return True
    bot_click_count(app_id=app_id, day=timezone.now().date(), media_source=media_source,
                    mode=mode)
    return mode == verdict.FLAG


@lru_cache(maxsize=4096)
def _secret(key_id: str, encrypted: str) -> str | None:
    """The key's signing secret, or None when it no longer decrypts (SECRET_KEY changed without
    the old one in SECRET_KEY_FALLBACKS). Kept like a good one, so the warning comes once per
    process and key rather than with every request the SDK sends."""
    try:
        return secret_decrypt(encrypted, purpose=SDK_REQUEST_SIGNING)
    except SecretUnreadable:
        logger.warning("The signing secret of API key %s cannot be decrypted (SECRET_KEY changed "
                       "without the old value in SECRET_KEY_FALLBACKS): its signed requests "
                       "count as wrongly signed until the old value is restored as a fallback "
                       "or the SDK gets a new signing key.", key_id)
        return None


def sdk_signature_check(client, meta: Mapping[str, Any], body: bytes) -> str | None:
    """The SDK pipeline's signature check (apps_registry/sdk.py), from cached values only: the
    app's signing mode and the key's secret. Enforce: a missing, malformed, wrong or expired
    signature is a 401, counted per app and day, and nothing of the request is stored.
    Report: the problem is returned, and the install is flagged with it. A key without a
    secret cannot sign: in an app that asks for signatures, its requests are missing one. A
    secret that no longer decrypts cannot be checked against: a signature is answered as
    wrong, exactly as one that does not match (docs/fraud.md, "Request signing")."""
    mode = selectors.settings_of(client.app_id).signing_mode
    if mode == verdict.SIGNING_OFF:
        return None
    encrypted = selectors.signing_secret_encrypted(client.key_id)
    secret = _secret(client.key_id, encrypted) if encrypted else None
    problem = signing.problem(
        secret=secret or "",
        timestamp=meta.get("HTTP_X_SIGNATURE_TIMESTAMP"),
        signatures=meta.get("HTTP_X_SIGNATURE"), body=body,
        now_seconds=int(time.time()), max_age=settings.FRAUD_SIGNATURE_MAX_AGE_SECONDS)
    if secret is None and problem is None:
        problem = signing.WRONG
    if problem is None or mode == verdict.SIGNING_REPORT:
        return problem
    signature_refusal_count(app_id=client.app_id, day=timezone.now().date(), sub_reason=problem)
    raise Unauthorized(SIGNATURE_MESSAGES[problem], {"X-Signature": [SIGNATURE_MESSAGES[problem]]})


class RequestSigning:
    """What apps_registry calls for signing keys (apps_registry/request_signing.py)."""

    @staticmethod
    def secret_issue(*, app_id: uuid.UUID, key_id: str) -> str:
        return signing_secret_create(app_id=app_id, key_id=key_id)

    @staticmethod
    def check(client, meta: Mapping[str, Any], body: bytes) -> str | None:
        return sdk_signature_check(client, meta, body)


def source_flag_record(*, app_id: uuid.UUID, media_source: str, day: date, mode: str,
                       stats: dict, now: datetime) -> bool:
    """Beat found the source flooding on `day`: its flag for the day, with the figures behind
    it (a later run of the day refreshes them and keeps the first detection time). Saved row
    by row, so every process's copy of the day's sources is dropped (fraud/apps.py). Returns
    whether the flag is new."""
    flag, created = SourceFlag.objects.get_or_create(
        app_id=app_id, media_source=media_source, day=day,
        defaults={"mode": mode, "stats": stats, "detected_at": now})
    if not created:
        flag.mode, flag.stats = mode, stats
        flag.save(update_fields=["mode", "stats"])
    return created
