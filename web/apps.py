"""Web attribution (docs/web.md): web keys' calls from a site's pages, the browser's
first-party web ids and their visits, a web id's first visit recorded as the web app's install,
and the script's files at /sdk/web/."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "web"
    verbose_name = "Web attribution"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tracking import selectors as tracking_selectors
        from web import selectors

        # A web app's install detail shows its web journey (docs/web.md).
        tracking_selectors.web_journey_reader_register(selectors.web_install_journey)
