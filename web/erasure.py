"""Erasure and access for one data subject in web's tables (docs/privacy.md, "What an erasure
removes"; privacy/erasure.py names this module): the subject's web ids are device ids (a web
install's `device_id` is its web id), and their rows here go: the web id (its landing URL,
referring host, customer id) and every visit (page URLs). Nothing here feeds a report's
counts, so the rows are deleted rather than blanked."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db.models import Q

from web.models import Visit, WebId


def _web_ids(app_id: uuid.UUID, install_ids: Iterable[uuid.UUID],
             device_ids: Iterable[str]) -> list[str]:
    match = Q(web_id__in=list(device_ids)) | Q(install_id__in=list(install_ids))
    return list(WebId.objects.filter(match, app_id=app_id).values_list("web_id", flat=True))


def erase(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
          device_ids: Iterable[str] = ()) -> dict[str, int]:
    """Erase a web app's web ids and their visits, found by web id, device id or install."""
    device_ids = list(device_ids)
    web_ids = {*_web_ids(app_id, install_ids, device_ids), *device_ids}
    visits, _ = Visit.objects.filter(app_id=app_id, web_id__in=web_ids).delete()
    ids, _ = WebId.objects.filter(app_id=app_id, web_id__in=web_ids).delete()
    return {"web_ids": ids, "visits": visits}


def records_for(app_id: uuid.UUID, *, install_ids: Iterable[uuid.UUID] = (),
                device_ids: Iterable[str] = ()) -> dict[str, list[dict]]:
    device_ids = list(device_ids)
    web_ids = {*_web_ids(app_id, install_ids, device_ids), *device_ids}
    return {
        "web_ids": list(WebId.objects.filter(app_id=app_id, web_id__in=web_ids).values(
            "web_id", "install_id", "customer_user_id", "landing_url", "referrer_host",
            "visit_media_source", "visit_campaign", "first_seen_at", "last_seen_at")),
        "visits": list(Visit.objects.filter(app_id=app_id, web_id__in=web_ids).order_by(
            "visited_at").values("visit_id", "web_id", "visited_at", "url", "referrer_host",
                                 "media_source", "campaign_id", "match_type")),
    }
