"""Writes of links and link domains (docs/links.md, "The API").

The rules that need the app or the organization live here: destinations are checked against
the app's own URL scheme (links/destinations.py), a link's domain must be one of the app's
organization's, and codes are unique per link domain (the database's constraints decide a
race; the loser is a 409 naming `code`). A link's app, code and domain never change: the short
URL is what was printed and shared (docs/links.md). The public side's caches follow every save
and delete on their own (links/apps.py), so a change is followed at once.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry.models import App
from attribution_site.api.exceptions import Conflict, ValidationFailed
from attribution_site.model_update import model_update
from links import codes, destinations, lookup
from links.models import Link, LinkDomain

# Destination fields and whether each may use the app's own scheme (links/destinations.py).
DESTINATIONS = {"ios_url": True, "android_url": True, "web_url": False, "og_image_url": False}
UPDATABLE_LINK_FIELDS = (
    "name", "media_source", "campaign_id", "adset", "ad", "deep_link_value", "params",
    "ios_url", "android_url", "web_url", "og_title", "og_description", "og_image_url",
    "expires_at", "active")
# Generated codes collide about once in 10^12 draws; a few tries are plenty, and running out
# means something else is wrong, which should surface rather than loop.
GENERATE_TRIES = 8
CODE_TAKEN = "This code is already used by another link on this domain."
HOST_TAKEN = "This host is already registered as a link domain."


def link_create(*, app: App, domain_host: str | None = None, code: str | None = None,
                **fields: Any) -> Link:
    """A new link of `app`; `code` is generated when not given. 400 for a destination the app
    cannot use or a domain that is not its organization's, 409 for a taken code."""
    _check_destinations(app=app, fields=fields)
    now = timezone.now()
    with transaction.atomic():
        domain = _domain_for(app=app, host=domain_host) if domain_host else None
        link = Link(app=app, domain=domain, created_at=now, updated_at=now, **fields)
        if code is not None:
            link.code = code
            if not _insert(link):
                raise Conflict(CODE_TAKEN, {"code": [CODE_TAKEN]})
            return link
        for _ in range(GENERATE_TRIES):
            link.code = codes.code_generate()
            if _insert(link):
                return link
    raise RuntimeError(f"no free link code after {GENERATE_TRIES} tries")


def link_update(*, link: Link, changes: dict[str, Any]) -> Link:
    _check_destinations(app=link.app, fields=changes)
    model_update(instance=link, changes=changes, updatable=UPDATABLE_LINK_FIELDS)
    return link


def link_delete(*, link: Link) -> None:
    """Delete the link and its recorded opens. Its clicks and installs keep their link id
    (they belong to the app's history and its source and campaign reports)."""
    with transaction.atomic():
        Link.objects.filter(id=link.id).delete()


def link_domain_create(*, organization_id: uuid.UUID, host: str,
                       service_hosts: set[str]) -> LinkDomain:
    """Register `host` (already lower-case and checked) for the organization. The service's
    own hosts (`service_hosts`, and any named literally in ALLOWED_HOSTS, which the public side
    never takes for a link domain) cannot be one: its /l/ links would answer as that
    organization's, or the domain would never serve a link."""
    if host in service_hosts or lookup.is_service_host(host):
        message = "This is the service's own host; links on it live at /l/{code}."
        raise ValidationFailed("Invalid input: host.", {"host": [message]})
    if LinkDomain.objects.filter(host=host).exists():
        raise Conflict(HOST_TAKEN, {"host": [HOST_TAKEN]})
    domain = LinkDomain(organization_id=organization_id, host=host, created_at=timezone.now())
    try:
        with transaction.atomic():
            domain.save(force_insert=True)
    except IntegrityError:
        raise Conflict(HOST_TAKEN, {"host": [HOST_TAKEN]}) from None
    return domain


def link_domain_delete(*, domain: LinkDomain) -> None:
    """Delete a link domain no link uses; 409 naming how many still do. Cascading would take
    those links, whose short URLs are printed and shared, down with a click."""
    with transaction.atomic():
        # Locked so a link created on it meanwhile (link_create locks it too) is counted.
        LinkDomain.objects.select_for_update().filter(id=domain.id).first()
        in_use = Link.objects.filter(domain_id=domain.id).count()
        if in_use:
            noun = "link uses" if in_use == 1 else "links use"
            raise Conflict(f"{in_use} {noun} this domain; delete them first.",
                           {"link_count": in_use})
        LinkDomain.objects.filter(id=domain.id).delete()


def _check_destinations(*, app: App, fields: dict[str, Any]) -> None:
    errors = {}
    for field, app_scheme_allowed in DESTINATIONS.items():
        value = fields.get(field)
        if value:
            problem = destinations.destination_problem(
                value, url_scheme=app.url_scheme, allow_app_scheme=app_scheme_allowed)
            if problem is not None:
                errors[field] = [problem]
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)


def _domain_for(*, app: App, host: str) -> LinkDomain:
    """The app's organization's link domain with this host, locked against its deletion."""
    domain = (LinkDomain.objects.select_for_update()
              .filter(organization_id=app.organization_id, host=host).first())
    if domain is None:
        message = "No link domain with this host in your organization."
        raise ValidationFailed("Invalid input: domain.", {"domain": [message]})
    return domain


def _insert(link: Link) -> bool:
    """Insert the link; False when its code is taken on its domain (the unique constraints,
    so two concurrent requests for one code cannot both win)."""
    if Link.objects.filter(domain=link.domain, code=link.code).exists():
        return False
    try:
        with transaction.atomic():
            link.save(force_insert=True)
    except IntegrityError:
        return False
    return True
