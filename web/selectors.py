"""Reads of web ids (docs/web.md): a web install's journey for its detail, a web id's current
attribution, and the web ids of a customer (privacy requests by customer id)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from web.models import WebId

WEB_PLATFORM = "web"


@dataclass(frozen=True)
class WebAttribution:
    """A web id's attribution now: its install's, or its latest re-engagement's."""

    web_id: str
    install_id: uuid.UUID | None
    media_source: str | None
    campaign_id: str | None
    match_type: str
    is_organic: bool
    customer_user_id: str | None


def web_id_current(*, app_id: uuid.UUID, web_id: str) -> WebAttribution | None:
    row = WebId.objects.filter(app_id=app_id, web_id=web_id).first()
    if row is None:
        return None
    return WebAttribution(web_id=row.web_id, install_id=row.install_id,
                          media_source=row.media_source, campaign_id=row.campaign_id,
                          match_type=row.match_type or "organic", is_organic=row.is_organic,
                          customer_user_id=row.customer_user_id)


def web_install_journey(install) -> dict | None:
    """tracking's web journey reader for a web app's own install: where its web id landed
    and what its first visit came from."""
    if install.platform != WEB_PLATFORM or not install.device_id:
        return None
    row = WebId.objects.filter(app_id=install.app_id, web_id=install.device_id).first()
    if row is None:
        return None
    return {"web_id": row.web_id, "landing_url": row.landing_url or None,
            "referrer_host": row.referrer_host, "visit_media_source": row.visit_media_source,
            "visit_campaign": row.visit_campaign}


def web_ids_for_customer(*, app_id: uuid.UUID, customer_user_id: str) -> list[str]:
    return list(WebId.objects.filter(app_id=app_id, customer_user_id=customer_user_id)
                .values_list("web_id", flat=True))
