"""Link clicks made from a web page (docs/web-sdk-wire.md, "The button's link"; docs/web.md,
"Web to app"): the web script's banner button and `appLink` add `web_id`, `web_via` and
optionally `pid`, `c` and `deep_link_value` to a short link's URL. Such a click takes `pid`
and `c` as its source and campaign and `deep_link_value` as its deep link, and its web journey
is recorded by the web_to_app app, which hands itself in at start (web_to_app/apps.py): it sits
above links, so links takes it instead of importing it. Without it, the parameters are
ignored and the click is the link's own.

`web_click_params` is pure; a URL without `web_via` (any ordinary click of a link) is never
changed by its query, so a shared link cannot be re-credited by editing `pid` in it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

WEB_VIAS = ("banner", "app_link")
MAX_SOURCE_LENGTH = 255
MAX_DEEP_LINK_LENGTH = 2048
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                   r"[0-9a-fA-F]{12}$")


@dataclass(frozen=True)
class WebClickParams:
    web_id: str
    via: str
    media_source: str | None  # None: the link's own
    campaign_id: str | None
    deep_link_value: str | None  # None: the link's own


def web_click_params(query: Mapping[str, str]) -> WebClickParams | None:
    """The web parameters of a link's URL, or None for an ordinary click (no `web_via`, or a
    `web_id` that is not a web id)."""
    via, web_id = query.get("web_via", ""), query.get("web_id", "")
    if via not in WEB_VIAS or not _UUID.match(web_id):
        return None
    media_source = _text(query.get("pid"), MAX_SOURCE_LENGTH)
    return WebClickParams(
        web_id=web_id.lower(), via=via, media_source=media_source,
        # A campaign only with the source it belongs to.
        campaign_id=(_text(query.get("c"), MAX_SOURCE_LENGTH) or "") if media_source else None,
        deep_link_value=_text(query.get("deep_link_value"), MAX_DEEP_LINK_LENGTH))


def _text(value: str | None, limit: int) -> str | None:
    value = (value or "").strip()
    return value[:limit] if value else None


class WebClicks(Protocol):
    def web_click_record(self, *, click_id: uuid.UUID, app_id: uuid.UUID, link_id: uuid.UUID,
                         params: WebClickParams, media_source: str, campaign_id: str,
                         clicked_at: datetime) -> None:
        """Record the click's web journey."""

    def deep_link_value_of(self, *, click_id: uuid.UUID) -> str | None:
        """The deep link value the click brought, or None (the link's own)."""


_web_clicks: WebClicks | None = None


def register(web_clicks: WebClicks | None) -> None:
    """Take the recorder of a banner button's clicks, carrying a web id and the visit's source."""
    global _web_clicks
    _web_clicks = web_clicks


def current() -> WebClicks | None:
    return _web_clicks
