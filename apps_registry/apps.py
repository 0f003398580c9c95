from django.apps import AppConfig


class AppsRegistryConfig(AppConfig):
    name = "apps_registry"
    verbose_name = "Apps and API keys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps_registry import schema  # noqa: F401 - registers the OpenAPI extension
