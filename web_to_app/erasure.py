"""Erasure and access for one data subject in web_to_app's tables (docs/privacy.md, "What an
erasure removes"; privacy/erasure.py names this module). On a web app the subject's web ids
are its device ids (and its installs' device ids): its banner events and the web journeys of
its clicks keep their rows, which the web-to-app report counts, without the web id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from web.models import WebId
from web_to_app.models import BannerEvent, WebClick


def _web_ids(app_id: uuid.UUID, install_ids: Iterable[uuid.UUID],
             device_ids: Iterable[str]) -> list[str]:
    device_ids = [value for value in device_ids if value]
    found = WebId.objects.filter(app_id=app_id, install_id__in=list(install_ids))
    return sorted({*device_ids, *found.values_list("web_id", flat=True)})


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
          device_ids: Iterable[str] = ()) -> dict[str, int]:
    """Blank the erased web ids in banner events and web clicks, keeping the counts."""
    web_ids = _web_ids(app_id, tuple(install_ids), tuple(device_ids))
    if not web_ids:
        return {}
    events = BannerEvent.objects.filter(web_app_id=app_id, web_id__in=web_ids).update(web_id="")
    clicks = WebClick.objects.filter(web_app_id=app_id, web_id__in=web_ids).update(web_id="")
    return {BannerEvent._meta.db_table: events, WebClick._meta.db_table: clicks}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
                device_ids: Iterable[str] = ()) -> dict[str, list[dict]]:
    web_ids = _web_ids(app_id, tuple(install_ids), tuple(device_ids))
    return {
        "banner_events": list(BannerEvent.objects.filter(
            web_app_id=app_id, web_id__in=web_ids).order_by("occurred_at").values(
            "event_id", "web_id", "kind", "occurred_at", "visit_media_source",
            "visit_campaign")),
        "web_clicks": list(WebClick.objects.filter(
            web_app_id=app_id, web_id__in=web_ids).order_by("clicked_at").values(
            "click_id", "app_id", "web_id", "via", "deep_link_value", "visit_media_source",
            "visit_campaign", "clicked_at")),
    }
