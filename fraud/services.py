"""Writes of fraud protection: an app's settings, a key's signing secret, the count of
requests refused for their signature, and beat's per-source click-flood flags."""

from __future__ import annotations

import secrets
import uuid
from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.db.models import F

from delivery import crypto
from fraud import selectors
from fraud.models import AppFraudSettings, SignatureRefusal, SigningSecret, SourceFlag

SIGNING_SECRET_BYTES = 32


def settings_update(*, app_id: uuid.UUID, changes: dict) -> selectors.FraudSettings:
    """Store the fields in `changes` (validated), the others kept or defaulted."""
    with transaction.atomic():
        row, _ = AppFraudSettings.objects.select_for_update().get_or_create(app_id=app_id)
        for name, value in changes.items():
            setattr(row, name, value)
        row.save()
    return selectors.settings_from_row(row)


def signing_secret_create(*, app_id: uuid.UUID, key_id: str) -> str:
    """A new signing secret for the key: 32 random bytes as hex, answered once and stored
    encrypted."""
    secret = secrets.token_hex(SIGNING_SECRET_BYTES)
    SigningSecret.objects.create(key_id=key_id, app_id=app_id,
                                 secret_encrypted=crypto.secret_encrypt(secret))
    return secret


def signature_refusal_count(*, app_id: uuid.UUID, day: date, sub_reason: str) -> None:
    """One more request refused for its signature: an UPDATE, else the day's first row."""
    updated = SignatureRefusal.objects.filter(app_id=app_id, day=day,
                                              sub_reason=sub_reason).update(
        refusals=F("refusals") + 1)
    if updated:
        return
    try:
        with transaction.atomic():
            SignatureRefusal.objects.create(app_id=app_id, day=day, sub_reason=sub_reason,
                                            refusals=1)
    except IntegrityError:  # another request created it in between
        SignatureRefusal.objects.filter(app_id=app_id, day=day, sub_reason=sub_reason).update(
            refusals=F("refusals") + 1)


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
