"""Conversion-value schemas (docs/apple.md, "Conversion-value schemas"): each app's schema
versions, the active one served to the SDK with the value it computes, and the SKAdNetwork
report."""

from django.apps import AppConfig


class ConversionConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "conversion"
    verbose_name = "Conversion-value schemas (SKAdNetwork 4)"
