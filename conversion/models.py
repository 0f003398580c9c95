"""Conversion-value schemas (docs/apple.md, "Conversion-value schemas"): one row per version
of an app's schema.

A version is never changed or deleted once written: a change is a new version, so a postback
decodes through the rules that were in force when it arrived, whatever came after. The newest
version is the active one. `document` is the schema as `conversion.values.schema_document`
writes it, checked by `conversion.values.schema_parse` before it is stored.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from attribution_site.ids import uuid7


class ConversionSchema(models.Model):
    """One immutable version of an app's conversion-value schema."""

    id = models.UUIDField(primary_key=True, default=uuid7, editable=False)
    app = models.ForeignKey("apps_registry.App", on_delete=models.CASCADE,
                            related_name="conversion_schemas")
    version = models.PositiveIntegerField()  # 1, 2, ... per app
    currency = models.CharField(max_length=3)
    document = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["app", "version"],
                                    name="conversion_schema_unique_version"),
        ]

    def __str__(self) -> str:
        return f"v{self.version}"
