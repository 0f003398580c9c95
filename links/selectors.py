"""Reads of links and link domains (docs/links.md, "The API"), always within one organization
or app.
Views and the console call these; another organization's link or domain is simply not found."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet

from links.models import Link, LinkDomain


@dataclass(frozen=True)
class LinkPosition:
    """Where a page of an app's links ended: newest first, by creation time then id."""

    created_at: datetime
    id: uuid.UUID


def links_for_app(*, app_id: uuid.UUID, limit: int,
                  after: LinkPosition | None = None) -> list[Link]:
    """Up to `limit` of the app's links, newest first, following `after` (keyset paging on
    the (app, created_at) index, so a deep page costs what the first does)."""
    links = Link.objects.filter(app_id=app_id).select_related("domain")
    if after is not None:
        links = links.filter(Q(created_at__lt=after.created_at)
                             | Q(created_at=after.created_at, id__lt=after.id))
    return list(links.order_by("-created_at", "-id")[:limit])


def link_for_organization(*, organization_id: uuid.UUID, link_id) -> Link | None:
    """The link if it exists and its app belongs to the organization, with app and domain."""
    try:
        link_uuid = link_id if isinstance(link_id, uuid.UUID) else uuid.UUID(str(link_id))
    except ValueError:
        return None
    return (Link.objects.select_related("app", "domain")
            .filter(id=link_uuid, app__organization_id=organization_id).first())


def link_domains_for_organization(*, organization_id: uuid.UUID) -> QuerySet[LinkDomain]:
    """The organization's link domains, each with how many links live on it."""
    return (LinkDomain.objects.filter(organization_id=organization_id)
            .annotate(link_count=Count("links")).order_by("host"))


def link_domain_for_organization(*, organization_id: uuid.UUID, domain_id) -> LinkDomain | None:
    try:
        domain_uuid = domain_id if isinstance(domain_id, uuid.UUID) else uuid.UUID(str(domain_id))
    except ValueError:
        return None
    return (LinkDomain.objects.filter(id=domain_uuid, organization_id=organization_id)
            .annotate(link_count=Count("links")).first())
