"""Writes of conversion-value schemas (docs/apple.md, "Conversion-value schemas"): a new
version, never an edit.

Versions number 1, 2, ... per app. Two owners saving at once would both read the same newest
version; the unique (app, version) constraint refuses the second insert, which then takes the
next number, so neither save is lost and no number is used twice.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Max

from conversion import values
from conversion.models import ConversionSchema

ATTEMPTS = 5


def schema_version_create(*, app_id: uuid.UUID, schema: values.Schema,
                          now: datetime) -> ConversionSchema:
    """Store `schema` (already checked) as the app's newest version, which makes it active."""
    document = values.schema_document(schema)
    attempt = 0
    while True:
        try:
            with transaction.atomic():
                newest = (ConversionSchema.objects.filter(app_id=app_id)
                          .aggregate(newest=Max("version"))["newest"] or 0)
                return ConversionSchema.objects.create(
                    app_id=app_id, version=newest + 1, currency=schema.currency,
                    document=document, created_at=now)
        except IntegrityError:
            attempt += 1
            if attempt == ATTEMPTS:
                raise
