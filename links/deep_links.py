"""Deep links (docs/links.md, "Deferred deep links", "Direct deep links: resolve"): what a link
tells its app to open, `{value, params, link_id}`, and the app opens that come through a link.

Deferred: tracking answers an install attributed to a link's click with this payload, read
through `deep_link_for_link_id`, which links/apps.py hands to tracking at startup. Direct: an app
opened through a universal link or app link resolves the URL it was opened with
(POST /deeplinks/resolve, links/resolve.py) with `deep_link_open_record`, which also counts the
open for the link's report (LinkOpen).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import unquote, urlsplit

from django.db import connection

from attribution_site import prepared
from links import codes, lookup, routing, web_clicks
from links.models import Link, LinkOpen
from tracking import attribution
from tracking import selectors as tracking_selectors

# The path of a link on the service's own host: /l/{code}.
OWN_HOST_PREFIX = "/l/"
# What a code can be (docs/links.md, "Codes": letters, digits, - and _; the column's 64): anything
# else names no link, and is never sent to the database (PostgreSQL refuses a NUL in a parameter).


def deep_link(link: Link) -> dict:
    """The payload the app receives: JSON-ready, the same shape wherever it is answered."""
    return _payload(link.id, link.deep_link_value, link.params)


def _payload(link_id: uuid.UUID, value: str, params: dict | None) -> dict:
    return {"value": value or None, "params": dict(params or {}), "link_id": str(link_id)}


_DEEP_LINK_SQL = f"SELECT deep_link_value, params FROM {Link._meta.db_table} WHERE id = %s"


def deep_link_for_click(link_id: uuid.UUID, click_id: uuid.UUID | None) -> dict | None:
    """What tracking reads (links/apps.py): the link's payload, with the deep link value a
    click from a web page brought (links/web_clicks.py) in place of the link's own."""
    payload = deep_link_for_link_id(link_id)
    handler = web_clicks.current()
    if payload is None or click_id is None or handler is None:
        return payload
    value = handler.deep_link_value_of(click_id=click_id)
    return payload if value is None else {**payload, "value": value}


def deep_link_for_link_id(link_id: uuid.UUID) -> dict | None:
    """The link's payload as it reads now, or None once the link is deleted. Only installs
    whose click came through a link ask, on the install path: one primary-key read, a prepared
    statement on PostgreSQL (attribution_site/prepared.py) as the path's other reads are.

    An inactive or expired link still answers: its click was made while it was live, and the
    install that followed is owed what the visitor was promised."""
    if connection.vendor == "postgresql":
        rows = prepared.fetch(_DEEP_LINK_SQL, [link_id])
        if not rows:
            return None
        value, params = rows[0]
        # Django's connection reads jsonb as text; the ORM would decode it.
        return _payload(link_id, value, json.loads(params) if isinstance(params, str)
                        else params)
    row = Link.objects.filter(id=link_id).values_list("deep_link_value", "params").first()
    return _payload(link_id, *row) if row is not None else None


def link_for_url(url: str) -> Link | None:
    """The link an app was opened with: a link domain's `https://{host}/{code}`, or the
    service's own `{host}/l/{code}` for any other host; the query and fragment are ignored."""
    parts = urlsplit(url)
    domain = lookup.link_domain_for_host(host=parts.hostname or "")
    path = unquote(parts.path).rstrip("/")
    if domain is None:
        if not path.startswith(OWN_HOST_PREFIX):
            return None
        code = path[len(OWN_HOST_PREFIX):]
    else:
        code = path[1:]
    if not codes.could_be_code(code):
        return None
    return lookup.link_for_code(domain=domain, code=code)


def link_is_live(link: Link, *, now: datetime) -> bool:
    """Whether the link still serves, by the rule following it applies."""
    return routing.link_state(active=link.active, expires_at=link.expires_at,
                              now=now) == routing.LIVE


@dataclass(frozen=True)
class DeepLinkOpen:
    link: Link
    deep_link: dict
    open_id: int


def deep_link_open_record(*, app_id: uuid.UUID, url: str, device_id: str | None,
                          now: datetime) -> DeepLinkOpen | None:
    """Resolve the URL an app of `app_id` was opened with and record the open; None when it
    names no live link of that app (unknown, another app's, inactive or expired), and then
    nothing is recorded."""
    link = link_for_url(url)
    if link is None or link.app_id != app_id or not link_is_live(link, now=now):
        return None
    device_id = attribution.usable_device_id(device_id)
    install = (tracking_selectors.install_for_device(app_id=app_id, device_id=device_id)
               if device_id else None)
    opened = LinkOpen.objects.create(link=link, app_id=app_id, device_id=device_id,
                                     install_id=install.id if install else None, opened_at=now)
    return DeepLinkOpen(link=link, deep_link=deep_link(link), open_id=opened.id)
