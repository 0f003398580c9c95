"""Reads of web_to_app (docs/web.md, "The banner", "Web to app")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count

from tracking import selectors as tracking_selectors
from web.models import WebId
from web_to_app import linked, report
from web_to_app.models import Banner, BannerEvent, BannerEventKind, BannerLink, WebClick

BANNER = "banner"


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
    re-engagement's), as the visits endpoint answers it: what `carry_visit_source` credits.
    Unknown before the web id's first visit is recorded (the script's calls may overtake
    it)."""
    if web_app_id is None:
        return UNKNOWN
    row = (WebId.objects.filter(app_id=web_app_id, web_id=web_id)
           .values_list("media_source", "campaign_id", "is_organic", "install_id").first())
    if row is None or row[3] is None:
        return UNKNOWN
    media_source, campaign, organic, _install = row
    if organic:
        return VisitSource(known=True)
    return VisitSource(media_source=media_source or "", campaign=campaign or "", known=True)


def customer_sources_of(*, web_app_id: uuid.UUID) -> dict[str, str]:
    """{customer user id: the visit source of the web id it was identified on} for the web
    app's identified web ids (POST /web/identify); the latest seen web id of a customer."""
    rows = (WebId.objects.filter(app_id=web_app_id, customer_user_id__isnull=False)
            .order_by("last_seen_at")
            .values_list("customer_user_id", "media_source", "is_organic"))
    return {customer: "" if organic else (source or "") for customer, source, organic in rows}


@dataclass(frozen=True)
class CustomerJourney:
    web_app_id: uuid.UUID
    web_id: str
    media_source: str
    campaign: str


def customer_journey_of(*, app_id: uuid.UUID, customer_user_id: str) -> CustomerJourney | None:
    """The web id of a web app linking `app_id` that was identified as this customer (the
    latest), with its visit source."""
    web_apps = linked.web_apps_linking(app_id=app_id)
    if not web_apps:
        return None
    row = (WebId.objects.filter(app_id__in=web_apps, customer_user_id=customer_user_id)
           .order_by("-last_seen_at")
           .values_list("app_id", "web_id", "media_source", "campaign_id", "is_organic").first())
    if row is None:
        return None
    web_app_id, web_id, source, campaign, organic = row
    return CustomerJourney(web_app_id=web_app_id, web_id=web_id,
                           media_source="" if organic else source or "",
                           campaign="" if organic else campaign or "")


def web_click_of(*, click_id: uuid.UUID) -> WebClick | None:
    return WebClick.objects.filter(click_id=click_id).first()


# --- The web-to-app report ------------------------------------------------------------------

def report_counts(*, web_app_id: uuid.UUID, since: datetime,
                  until: datetime) -> dict[str, dict[str, int]]:
    """`{measure: {visit source: count}}` of the web app's banner and journeys in
    [since, until), for web_to_app/report.py: banner events by kind, the installs the banner's
    clicks of the period won, and the linked apps' installs of the period joined by customer
    id to a web id of this web app."""
    counts: dict[str, dict[str, int]] = {measure: {} for measure in report.MEASURES}
    measure_of = {BannerEventKind.VIEW: "banner_views", BannerEventKind.CLICK: "banner_clicks",
                  BannerEventKind.DISMISS: "banner_dismissals"}
    events = (BannerEvent.objects.filter(web_app_id=web_app_id, occurred_at__gte=since,
                                         occurred_at__lt=until)
              .values("kind", "visit_media_source").annotate(n=Count("id")))
    for row in events:
        _add(counts[measure_of[row["kind"]]], row["visit_media_source"], row["n"])
    app_ids = linked.linked_apps_of(app_id=web_app_id)
    clicks = dict(WebClick.objects.filter(
        web_app_id=web_app_id, via=BANNER, clicked_at__gte=since, clicked_at__lt=until)
        .values_list("click_id", "visit_media_source"))
    won = tracking_selectors.installs_of_clicks(app_ids=app_ids, click_ids=list(clicks))
    for click_id in won:
        _add(counts["installs_from_banner"], clicks[click_id], 1)
    sources = customer_sources_of(web_app_id=web_app_id)
    joined = tracking_selectors.installs_of_customers(
        app_ids=app_ids, customer_user_ids=list(sources), since=since, until=until)
    for customer_user_id, install_id in joined:
        if install_id not in won.values():  # the banner counted it already
            _add(counts["installs_joined_by_customer_id"], sources[customer_user_id], 1)
    return counts


def _add(by_source: dict[str, int], source: str, count: int) -> None:
    by_source[source] = by_source.get(source, 0) + count
