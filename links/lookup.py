"""Which link a request names: by the host it arrived on and its code. A host registered as a
link domain (LinkDomain) serves only its organization's links at /{code}; any other host is the
service's own, whose links live at /l/{code}.

Following a link asks on every visit, so the public side reads through process-local caches
(attribution_site/local_cache.py), as the click redirector reads an app's store URLs:
- the registered link-domain hosts, one small map (`link_domain_of_host`);
- a code's link id per domain, and a link's plain redirect facts by id (`link_target`). A
  cached code is checked against its link's current code and domain, so a code freed by a
  rename or a deletion and taken by another link is never served from the old entry.
Every save or delete of a Link or LinkDomain, by whatever writer, calls `link_changed` or
`domain_changed` (wired in links/apps.py), which drop the copies in every process at once and
again after the change commits. What following needs of the link's app (its name, URL scheme,
organization and stores) is the app's own cached record (`apps_registry.selectors.app_target`),
dropped when the app changes.

A host listed literally in ALLOWED_HOSTS is always the service's own: it is never looked up as
a link domain, so no organization can take over the service's host by registering it.
`link_domain_for_host` and `link_for_code` (model instances, uncached) serve the deep-link
resolver, which runs once per app open.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from apps_registry.models import App
from attribution_site.local_cache import LocalCache
from links.association import AppIdentity
from links.models import Link, LinkDomain

CACHE_SECONDS = 30.0


@dataclass(frozen=True)
class DomainRecord:
    id: uuid.UUID
    host: str
    organization_id: uuid.UUID


@dataclass(frozen=True)
class LinkTarget:
    """A link as following it needs it; cached, so plain."""

    id: uuid.UUID
    app_id: uuid.UUID
    domain_id: uuid.UUID | None
    code: str
    active: bool
    expires_at: datetime | None
    media_source: str
    campaign_id: str
    adset: str
    ad: str
    ios_url: str | None
    android_url: str | None
    web_url: str | None
    og_title: str
    og_description: str
    og_image_url: str


_domains = LocalCache("link-domain-hosts", ttl=CACHE_SECONDS)
_codes = LocalCache("link-codes", ttl=CACHE_SECONDS)
_links = LocalCache("links", ttl=CACHE_SECONDS)
_ALL_HOSTS = "all"
_TARGET_FIELDS = ("id", "app_id", "domain_id", "code", "active", "expires_at", "media_source",
                  "campaign_id", "adset", "ad", "ios_url", "android_url", "web_url",
                  "og_title", "og_description", "og_image_url")


def bare_host(host: str) -> str:
    """A Host header without its port, lower-case."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def is_service_host(host: str) -> bool:
    """Whether this bare host is named literally in ALLOWED_HOSTS (the service's own)."""
    return host in {h.lower() for h in settings.ALLOWED_HOSTS if h != "*" and h[:1] != "."}


def link_domain_of_host(*, host: str) -> DomainRecord | None:
    """The link domain a raw Host header names, or None for the service's own host."""
    host = bare_host(host)
    if not host or is_service_host(host):
        return None
    return _domains.get(_ALL_HOSTS, _domain_hosts_uncached).get(host)


def link_target(*, domain_id: uuid.UUID | None, code: str) -> LinkTarget | None:
    """The link with this code on this domain (None: the service's own host), from this
    process's caches when it has them; None when no link has that code there."""
    key = f"{domain_id or '-'}:{code}"
    link_id = _codes.get(key, lambda: _link_id_uncached(domain_id, code))
    if link_id is None:
        return None
    target = _links.get(link_id, lambda: _link_target_uncached(link_id))
    if target is not None and target.code == code and target.domain_id == domain_id:
        return target
    # The cached code has since moved to another link or gone: ask the database.
    _codes.drop(key)
    link_id = _link_id_uncached(domain_id, code)
    return _link_target_uncached(link_id) if link_id is not None else None


def link_changed(*, link_id: uuid.UUID) -> None:
    """The link was created, changed or deleted: every process reads it again. Called at once
    and again after the change commits, so no process keeps a copy from before it."""
    _links.invalidate(link_id)
    transaction.on_commit(lambda: _links.invalidate(link_id))


def domain_changed() -> None:
    """A link domain was added, changed or removed: every process reads the hosts again."""
    _domains.invalidate(_ALL_HOSTS)
    transaction.on_commit(lambda: _domains.invalidate(_ALL_HOSTS))


def link_domain_for_host(*, host: str) -> LinkDomain | None:
    """The organization's link domain this host is, or None for the service's own host."""
    return LinkDomain.objects.filter(host=bare_host(host)).first() if host else None


def link_for_code(*, domain: LinkDomain | None, code: str) -> Link | None:
    """The link with this code on this domain (None: the service's own host), with its app."""
    links = Link.objects.select_related("app")
    if domain is None:
        return links.filter(domain__isnull=True, code=code).first()
    return links.filter(domain=domain, code=code).first()


def association_apps(*, organization_id: uuid.UUID | None) -> list[AppIdentity]:
    """The apps a host's association files name: the organization's on its link domain, every
    app on the service's host (its /l/ links belong to every organization). Read on each
    fetch: Apple's CDN and Google's verifier fetch rarely."""
    apps = App.objects.filter(Q(platform="ios", apple_team_id__isnull=False)
                              | Q(platform="android"))
    if organization_id is not None:
        apps = apps.filter(organization_id=organization_id)
    return [AppIdentity(platform=platform, bundle_id=bundle_id, apple_team_id=team_id,
                        package_name=package, android_sha256_fingerprints=tuple(prints or ()))
            for platform, bundle_id, team_id, package, prints in apps.values_list(
                "platform", "bundle_id", "apple_team_id", "package_name",
                "android_sha256_fingerprints")]


def _domain_hosts_uncached() -> dict[str, DomainRecord]:
    return {host: DomainRecord(id=id_, host=host, organization_id=org)
            for id_, host, org in LinkDomain.objects.values_list("id", "host",
                                                                 "organization_id")}


def _link_id_uncached(domain_id: uuid.UUID | None, code: str) -> uuid.UUID | None:
    links = Link.objects.filter(code=code)
    links = links.filter(domain__isnull=True) if domain_id is None else links.filter(
        domain_id=domain_id)
    return links.values_list("id", flat=True).first()


def _link_target_uncached(link_id: uuid.UUID) -> LinkTarget | None:
    row = Link.objects.filter(id=link_id).values_list(*_TARGET_FIELDS).first()
    return LinkTarget(*row) if row is not None else None
