from django.apps import AppConfig


class TrackingConfig(AppConfig):
    name = "tracking"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site import readiness
        from tracking.readiness import partitions

        readiness.register("partitions", partitions)
