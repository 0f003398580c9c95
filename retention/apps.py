"""Retention (docs/privacy.md, "Retention"): each app's limits on how long IP addresses,
fingerprints and raw rows are kept, enforced by beat."""

from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "retention"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import readiness
        from retention.readiness import retention

        readiness.register("retention", retention)
