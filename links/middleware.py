"""Requests to an organization's link domain (docs/links.md, "Link domains and TLS") go to its
links, ahead of the rest of the middleware stack.

A link domain (`go.example.com`, a LinkDomain row) serves only its organization's links at
`/{code}`, its association files, and the fallback page for anything else: never the console,
the API or the admin. Its registration is what lets it in, so it is not listed in
ALLOWED_HOSTS (which names the service's own hosts: a host listed there is never taken for a
link domain, links/lookup.py), and this middleware answers before CommonMiddleware would refuse
the unknown host. It sits after the hot-path middleware, so /clicks, /installs and /events pay
nothing for it; every other request pays a set lookup, or one cached map lookup when its host
is not one of the service's own (attribution_site/local_cache.py).
"""

from __future__ import annotations

import logging

from django.conf import settings

from links import follow, lookup

logger = logging.getLogger(__name__)


class LinkDomainMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            domain = lookup.link_domain_of_host(host=request.META.get("HTTP_HOST", ""))
        except Exception:  # noqa: BLE001 - a lookup failure must not take the service down
            logger.exception("link domain lookup failed")
            domain = None
        # The link pages' stylesheet comes from the same host (their policy allows 'self'):
        # static files go on to WhiteNoise, which serves them whatever the host.
        if domain is None or request.path_info.startswith(settings.STATIC_URL):
            return self.get_response(request)
        return follow.serve_link_domain(request, domain)
