"""What the web script is answered about the banner (docs/web-sdk-wire.md, "GET
/api/v1/web/banner"): the web app's banner for the device a User-Agent names, with the short
link of the linked app its button opens there; null when the app has no banner, or none for
this device."""

from __future__ import annotations

import re
import uuid

from links.serializers import link_short_url
from tracking.useragent import MAX_PARSED_LENGTH, device_info
from web_to_app import banner_rules, linked, selectors, services

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                   r"[0-9a-fA-F]{12}$")


def is_web_id(value: str) -> bool:
    return bool(_UUID.match(value))


def banner_config(*, web_app_id: uuid.UUID, user_agent: str, own_origin: str,
                  auto_only: bool = False) -> dict | None:
    """The banner config for this device, or None. `auto_only`: only a banner set to show by
    itself (the visit's answer, `data.banner`)."""
    banner = selectors.banner_of(web_app_id=web_app_id)
    if banner is None or (auto_only and not banner.auto_show):
        return None
    device = banner_rules.device_of(
        ua_platform=device_info(user_agent[:MAX_PARSED_LENGTH]).platform)
    app_id = banner_rules.shown_on(platforms=banner.platforms, device=device,
                                   linked=linked.linked_apps_platforms(web_app_id=web_app_id))
    if app_id is None:
        return None
    link = services.button_link_for(web_app_id=web_app_id, app_id=app_id)
    return {"title": banner.title, "body": banner.body, "button": banner.button,
            "icon_url": banner.icon_url, "platforms": list(banner.platforms),
            "dismiss_days": banner.dismiss_days, "deep_link_value": banner.deep_link_value,
            "carry_visit_source": banner.carry_visit_source,
            "link": link_short_url(link, own_origin=own_origin)}


def auto_banner_config(*, web_app_id: uuid.UUID, user_agent: str, own_origin: str) -> dict | None:
    """What web/auto_banner.py is handed: the banner a visit's answer carries."""
    return banner_config(web_app_id=web_app_id, user_agent=user_agent, own_origin=own_origin,
                         auto_only=True)
