"""Web to app (docs/web.md, "The banner", "Web to app"): a web app's linked mobile apps, its
smart banner, the banner button's short link and the journeys it starts. At start it hands
apps_registry its linked apps, links the recorder of web clicks, tracking the reader of an
app install's web journey, and web the banner a visit's answer carries: each of those sits
below web_to_app, so they take it instead of importing it."""

from django.apps import AppConfig


class WebToAppConfig(AppConfig):
    name = "web_to_app"
    verbose_name = "Web to app"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from apps_registry import linked_apps
        from links import web_clicks
        from tracking import selectors as tracking_selectors
        from web import auto_banner
        from web_to_app import journeys, linked, serving

        linked_apps.register(linked.LinkedAppsOfWebApps())
        web_clicks.register(journeys.WebClicksOfWebToApp())
        tracking_selectors.web_journey_reader_register(journeys.install_web_journey)
        auto_banner.register(serving.auto_banner_config)
