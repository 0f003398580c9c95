"""Raw data delivered to the owner's bucket (docs/export.md): destinations, the runs
that write hourly Parquet or CSV files to them through the outbox, and reading them back."""

from django.apps import AppConfig


class RawExportConfig(AppConfig):
    name = "raw_export"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import readiness
        from raw_export import readiness as checks

        readiness.register("raw_export", checks.destinations_behind)
