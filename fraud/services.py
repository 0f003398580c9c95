"""Writes of fraud protection: an app's settings, a key's signing secret, the count of
requests refused for their signature."""

from __future__ import annotations

import secrets
import uuid
from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import F

from delivery import crypto
from fraud import selectors
from fraud.models import AppFraudSettings, SignatureRefusal, SigningSecret

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
