"""Apps and their API keys (docs/decisions.md): the one API-key check and the SDK request
pipeline (`sdk.py`), and the organization-scoped base of every dashboard view (`scoping.py`)."""

from django.apps import AppConfig


class AppsRegistryConfig(AppConfig):
    name = "apps_registry"
    verbose_name = "Apps and API keys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # `schema` registers the OpenAPI extension on import.
        from apps_registry import schema, selectors  # noqa: F401
        from apps_registry.models import ApiKey, App
        from attribution_site.local_cache import invalidate_on_write

        # Every write of an app or key, wherever it is made, reaches the caches that keep them.
        invalidate_on_write(App, lambda app, deleted: selectors.app_target_changed(app_id=app.id))
        invalidate_on_write(ApiKey, selectors.api_key_changed)
