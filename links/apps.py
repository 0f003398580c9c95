"""The links app's startup: it hands tracking the reader of a link's deep link, so an install
attributed to a link's click answers with it (tracking never imports links)."""

from django.apps import AppConfig


class LinksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "links"

    def ready(self):
        from links.deep_links import deep_link_for_link_id
        from tracking import services

        services.deep_link_reader_register(deep_link_for_link_id)
