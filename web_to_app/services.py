"""Writes of web_to_app (docs/web.md, "The banner", "Web to app"): the banner's settings, the
short links behind its button, banner events and the web clicks of links.

The button's link is one short link (links feature) per linked app, made when first needed
and kept: media source `web_banner`, no deep link of its own (each click brings the page's).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry.models import App, Platform
from attribution_site.api.exceptions import ValidationFailed
from links import services as link_services
from links.models import Link
from web_to_app import banner_rules, linked, selectors
from web_to_app.models import Banner, BannerEvent, BannerLink, WebClick

BANNER_MEDIA_SOURCE = "web_banner"


@dataclass(frozen=True)
class ButtonLink:
    app_id: uuid.UUID
    platform: str
    link: Link


def banner_put(*, web_app: App, fields: dict) -> Banner:
    """Replace the web app's banner (fields checked by serializers.BannerBody)."""
    if web_app.platform != Platform.WEB:
        raise ValidationFailed("Invalid input: platform.", {"platform": [
            "Only a web app has a banner; this app's platform is "
            f"{web_app.platform}."]})
    problem = banner_rules.platforms_problem(
        platforms=fields["platforms"],
        linked_platforms=[p for _id, p in linked.linked_apps_platforms(web_app_id=web_app.id)])
    if problem:
        raise ValidationFailed("Invalid input: platforms.", {"platforms": [problem]})
    with transaction.atomic():
        banner, _created = Banner.objects.update_or_create(
            web_app=web_app, defaults={**fields, "updated_at": timezone.now()})
    button_links_ensure(web_app=web_app)
    return banner


def button_links_ensure(*, web_app: App) -> list[ButtonLink]:
    """The button's link for each linked app, made for those that have none yet."""
    have = {row.app_id: row.link for row in
            BannerLink.objects.filter(web_app=web_app).select_related("link")}
    answer = []
    for app_id, platform in linked.linked_apps_platforms(web_app_id=web_app.id):
        link = have.get(app_id) or _button_link_create(web_app=web_app, app_id=app_id)
        answer.append(ButtonLink(app_id=app_id, platform=platform, link=link))
    return answer


def button_link_for(*, web_app_id: uuid.UUID, app_id: uuid.UUID) -> Link:
    row = BannerLink.objects.filter(web_app_id=web_app_id, app_id=app_id).select_related(
        "link").first()
    if row is not None:
        return row.link
    return _button_link_create(web_app=App.objects.get(id=web_app_id), app_id=app_id)


def _button_link_create(*, web_app: App, app_id: uuid.UUID) -> Link:
    app = App.objects.get(id=app_id)
    try:
        with transaction.atomic():
            link = link_services.link_create(
                app=app, name=f"Banner of {web_app.name}"[:200],
                media_source=BANNER_MEDIA_SOURCE, campaign_id="")
            BannerLink.objects.create(web_app=web_app, app=app, link=link)
            return link
    except IntegrityError:  # a concurrent request made it first
        return BannerLink.objects.select_related("link").get(web_app=web_app, app=app).link


def banner_event_record(*, web_app_id: uuid.UUID, web_id: str, kind: str,
                        event_id: uuid.UUID, occurred_at: datetime) -> bool:
    """Record a banner event once per event id; False when it was recorded already."""
    source = selectors.visit_source_of(web_app_id=web_app_id, web_id=web_id)
    try:
        with transaction.atomic():
            BannerEvent.objects.create(
                web_app_id=web_app_id, event_id=event_id, web_id=web_id, kind=kind,
                occurred_at=occurred_at, visit_media_source=source.media_source,
                visit_campaign=source.campaign)
    except IntegrityError:
        return False
    return True


def web_click_record(*, click_id: uuid.UUID, app_id: uuid.UUID, link_id: uuid.UUID,
                     web_id: str, via: str, media_source: str, campaign_id: str,
                     deep_link_value: str, clicked_at: datetime) -> WebClick:
    """The web journey of a link click made from a web page. The web app is the banner's
    for its own links, else the one web app linking the link's app (the first when several
    do). The visit's source is the web id's own when known, else what the click carried (a
    click crediting `web_banner` says nothing of the visit)."""
    web_app_id = selectors.web_app_of_link(link_id=link_id, app_id=app_id)
    source = selectors.visit_source_of(web_app_id=web_app_id, web_id=web_id)
    if not source.known and media_source != BANNER_MEDIA_SOURCE:
        source = selectors.VisitSource(media_source=media_source, campaign=campaign_id,
                                       known=True)
    return WebClick.objects.create(
        click_id=click_id, app_id=app_id, link_id=link_id, web_app_id=web_app_id,
        web_id=web_id[:64], via=via, deep_link_value=deep_link_value[:2048],
        visit_media_source=source.media_source[:255], visit_campaign=source.campaign[:255],
        clicked_at=clicked_at)
