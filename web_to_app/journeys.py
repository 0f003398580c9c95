"""Web journeys of app installs (docs/web.md, "Web to app"): an app install attributed to a
click made from a web page (the banner's button or `appLink`) carries that page's web id and
the visit's source; an install by a customer the site identified (`identify`) joins the
journey of that customer's web id. Handed in at start (web_to_app/apps.py) to links (which
records the clicks) and to tracking (which shows an install's journey: its web journey readers,
tracking/selectors.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from links.web_clicks import WebClickParams
from web_to_app import selectors, services
from web_to_app.models import WebClick


class WebClicksOfWebToApp:
    """What links is handed (links.web_clicks.WebClicks)."""

    @staticmethod
    def web_click_record(*, click_id: uuid.UUID, app_id: uuid.UUID, link_id: uuid.UUID,
                         params: WebClickParams, media_source: str, campaign_id: str,
                         clicked_at: datetime) -> None:
        services.web_click_record(
            click_id=click_id, app_id=app_id, link_id=link_id, web_id=params.web_id,
            via=params.via, media_source=media_source, campaign_id=campaign_id,
            deep_link_value=params.deep_link_value or "", clicked_at=clicked_at)

    @staticmethod
    def deep_link_value_of(*, click_id: uuid.UUID) -> str | None:
        value = (WebClick.objects.filter(click_id=click_id)
                 .values_list("deep_link_value", flat=True).first())
        return value or None


def install_web_journey(install) -> dict | None:
    """An app install's `web` block: `{web_id, visit_media_source, visit_campaign,
    web_app_id, via, joined_by}` (`joined_by`: `click` or `customer_user_id`), or None when
    no web journey led to it. A web app's own installs are the web app's visits: not ours."""
    if install.platform == "web":
        return None
    return journey_of(app_id=install.app_id, click_id=install.click_id,
                      customer_user_id=install.customer_user_id)


def journey_of(*, app_id: uuid.UUID, click_id: uuid.UUID | None,
               customer_user_id: str | None) -> dict | None:
    click = selectors.web_click_of(click_id=click_id) if click_id else None
    if click is not None:
        return _block(web_id=click.web_id, source=click.visit_media_source,
                      campaign=click.visit_campaign, web_app_id=click.web_app_id,
                      via=click.via, joined_by="click")
    if not customer_user_id:
        return None
    joined = selectors.customer_journey_of(app_id=app_id, customer_user_id=customer_user_id)
    if joined is None:
        return None
    return _block(web_id=joined.web_id, source=joined.media_source, campaign=joined.campaign,
                  web_app_id=joined.web_app_id, via=None, joined_by="customer_user_id")


def _block(*, web_id: str, source: str, campaign: str, web_app_id: uuid.UUID | None,
           via: str | None, joined_by: str) -> dict:
    """The `web` block; `web_app_id` and `via` only when known."""
    block = {"web_id": web_id, "visit_media_source": source or None,
             "visit_campaign": campaign or None, "joined_by": joined_by}
    if web_app_id is not None:
        block["web_app_id"] = str(web_app_id)
    if via is not None:
        block["via"] = via
    return block
