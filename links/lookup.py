"""Which link a request names: by the host it arrived on and its code. A host registered as a
link domain (LinkDomain) serves only its organization's links at /{code}; any other host is the
service's own, whose links live at /l/{code}."""

from __future__ import annotations

from links.models import Link, LinkDomain


def link_domain_for_host(*, host: str) -> LinkDomain | None:
    """The organization's link domain this host is, or None for the service's own host."""
    return LinkDomain.objects.filter(host=_bare(host)).first() if host else None


def link_for_code(*, domain: LinkDomain | None, code: str) -> Link | None:
    """The link with this code on this domain (None: the service's own host), with its app."""
    links = Link.objects.select_related("app")
    if domain is None:
        return links.filter(domain__isnull=True, code=code).first()
    return links.filter(domain=domain, code=code).first()


def _bare(host: str) -> str:
    """A Host header without its port, lower-case."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host
