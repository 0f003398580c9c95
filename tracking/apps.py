"""Clicks, installs and events (spec: Attribution endpoints): the waterfall (`attribution.py`,
pure), the hot-path SQL (`sql.py`), the writes by concern (`services/`), day partitions, and the
rows analytics reads (`reporting/`)."""

from django.apps import AppConfig


class TrackingConfig(AppConfig):
    name = "tracking"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import readiness
        from consent import services as consent_services
        from tracking import selectors
        from tracking.readiness import partitions

        readiness.register("partitions", partitions)
        # Who a consent change is about, read from the installs (consent does not import
        # tracking: tracking imports it).
        consent_services.identity_reader_register(selectors.consent_identity)
