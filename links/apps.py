"""Short links (docs/links.md): links, link domains, association files, deep links and the
public redirector. On start it hands tracking the reader of a link's deep link, so an install
attributed to a link's click answers with it (tracking never imports links), and ties the
public side's caches to every write of a link or link domain."""

from django.apps import AppConfig


class LinksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "links"

    def ready(self):
        from attribution_site.local_cache import invalidate_on_write
        from links import lookup
        from links.deep_links import deep_link_for_click
        from links.models import Link, LinkDomain
        from tracking import services

        services.deep_link_reader_register(deep_link_for_click)
        # Every write of a link or link domain, wherever it is made, reaches the public side.
        invalidate_on_write(Link, lambda link, deleted: lookup.link_changed(link_id=link.id))
        invalidate_on_write(LinkDomain, lambda domain, deleted: lookup.domain_changed())
