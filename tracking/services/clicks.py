"""Clicks (spec: Attribution endpoints, `GET /api/v1/clicks`): storing a click in the hot store
and the archive, and the deep link a link-borne click carries to the install it wins. The
click's statement is tracking/sql.py's `click_insert`; the request side (rate limit, bots, the
redirect) is tracking/click_intake.py's.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from attribution_site.ids import uuid7
from tracking import attribution, fingerprint, sql
from tracking.click_values import MAX_LENGTH as CLICK_VALUE_LENGTH
from tracking.services.columns import column_text
from tracking.useragent import device_info


@dataclass(frozen=True)
class ClickInput:
    app_id: uuid.UUID
    campaign_id: str
    media_source: str
    adset: str
    ad: str
    advertising_id: str | None
    ip: str | None
    user_agent: str
    accept_language: str
    clicked_at: datetime
    link_id: uuid.UUID | None = None


def click_record(*, click: ClickInput) -> uuid.UUID:
    """Store a click in the hot store and the archive; committed when this returns."""
    device = device_info(click.user_agent)
    advertising_id = attribution.usable_device_id(click.advertising_id)
    if advertising_id is not None and len(advertising_id) > 64:
        advertising_id = None
    user_agent = column_text(click.user_agent, 1024)
    values = {
        "id": uuid7(),
        "app_id": click.app_id,
        "campaign_id": column_text(click.campaign_id, CLICK_VALUE_LENGTH),
        "media_source": column_text(click.media_source, CLICK_VALUE_LENGTH),
        "adset": column_text(click.adset, CLICK_VALUE_LENGTH),
        "ad": column_text(click.ad, CLICK_VALUE_LENGTH),
        "advertising_id": advertising_id,
        "ip": click.ip or None,
        "ip_prefix": fingerprint.network_key(click.ip),
        "user_agent": user_agent,
        "accept_language": column_text(click.accept_language, 255),
        "os_family": device.os_family,
        "os_version": device.os_version,
        "device_model": device.device_model,
        "fingerprint": fingerprint.click_fingerprint(click.ip or "", user_agent),
        "clicked_at": click.clicked_at,
        "link_id": click.link_id,
    }
    sql.click_insert(values)
    return values["id"]


# --- Deep links -----------------------------------------------------------------------------

# What a short link tells the app to open ({value, params, link_id}), by the link's id: the
# links app registers its reader at startup (links/apps.py). Tracking knows a click's link only
# by id, and links already imports tracking to record the clicks its links bring, so a reader
# handed in keeps the dependency one way and tracking whole without the links app (no link:
# no deep link), as domain_events does for subscribers.
# The click's id too: a click from a web page brings its own deep link value
# (links/web_clicks.py).
DeepLinkReader = Callable[[uuid.UUID, uuid.UUID | None], dict | None]
_deep_link_reader: DeepLinkReader | None = None


def deep_link_reader_register(reader: DeepLinkReader | None) -> None:
    """Use `reader` for the deep link of a link-borne click (None: links are not installed)."""
    global _deep_link_reader
    _deep_link_reader = reader


def deep_link(link_id: uuid.UUID | None, click_id: uuid.UUID | None = None) -> dict | None:
    """The deep link of the link's click now; only clicks that came through a link cost a
    lookup."""
    if link_id is None or _deep_link_reader is None:
        return None
    return _deep_link_reader(link_id, click_id)
