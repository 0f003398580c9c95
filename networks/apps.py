"""Integrations (docs/networks.md): an app's settings for the self-attributing platforms, Meta
and Google Ads, whose secrets are stored encrypted, read through cached selectors by the install
path and by the workers that talk to the platforms."""

from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from attribution_site.local_cache import invalidate_on_write
        from integrations import selectors
        from integrations.models import GoogleAdsConfig, MetaConfig

        # Every write, whoever makes it (the API, the console, the admin, a cascade), drops the
        # app's cached integrations in every process.
        for model in (MetaConfig, GoogleAdsConfig):
            invalidate_on_write(
                model, lambda config, deleted: selectors.integrations_changed(app_id=config.app_id))
