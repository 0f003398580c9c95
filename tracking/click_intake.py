"""A click recorded from the request that makes it (spec: Attribution endpoints, "Click
tracking"): its address, User-Agent and language, within the app's click rate limit. The one
way in for both front doors that count clicks, /clicks (tracking/views.py) and a followed link
(links/follow.py), so both count a click the same way.
"""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.utils import timezone

from attribution_site.api.client_ip import request_client_ip
from attribution_site.api.throttling import fixed_window_hit
from fraud import services as fraud_services
from tracking import services
from tracking.useragent import is_bot

logger = logging.getLogger(__name__)


def click_from_request(request, *, app_id: uuid.UUID, campaign_id: str, media_source: str,
                       adset: str, ad: str, advertising_id: str | None,
                       link_id: uuid.UUID | None = None) -> uuid.UUID | None:
    """Record the click this request makes; the click's id, or None when it was not recorded.
    Never raises: the visitor is sent on whatever happens here."""
    try:
        if fixed_window_hit(f"clicks:{app_id}", limit=settings.CLICK_RATE_LIMIT_PER_APP):
            logger.warning("click rate limit reached for app %s; click not recorded", app_id)
            return None
        user_agent = request.META.get("HTTP_USER_AGENT", "")
        if not fraud_services.bots_click_verdict(app_id=app_id, media_source=media_source,
                                                 bot=is_bot(user_agent)):
            return None  # the bots rule (docs/fraud.md): counted, not recorded
        return services.click_record(click=services.ClickInput(
            app_id=app_id, campaign_id=campaign_id, media_source=media_source, adset=adset,
            ad=ad, advertising_id=advertising_id, ip=request_client_ip(request) or None,
            user_agent=user_agent,
            accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
            clicked_at=timezone.now(), link_id=link_id))
    except Exception:  # noqa: BLE001 - the visitor is redirected whatever happened here
        logger.exception("click not recorded for app %s", app_id)
        return None
