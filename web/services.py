"""Writes of the web endpoints (docs/web.md; wire: docs/web-sdk-wire.md): visits, events,
identify and consent of a web id.

A web id's first visit is the web app's install, recorded by tracking's install path
(`install_record_decided`) with the verdict of web/attribution.py, so the install is stored,
published (postbacks, webhooks, exports) and explained as an app's is; a later visit with a
paid source is a re-engagement through the same path. Events are the app's events
(`events_record`), consent the app's consent rows (consent/). Every call may arrive before the
web id's first visit (the script's requests overlap) and more than once (replays): visits and
events are idempotent by their ids, identify and consent repeat the same values.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction

from attribution_site.api.exceptions import ValidationFailed
from consent import services as consent_services
from tracking import attribution as waterfall
from tracking import services as tracking
from tracking.event_batch import check_batch
from tracking.services.columns import column_text
from web import attribution, bodies
from web.consent_map import web_consent
from web.models import Visit, WebId

WEB_PLATFORM = "web"


@dataclass(frozen=True)
class VisitAnswer:
    web_id: str
    is_new: bool
    media_source: str | None
    campaign_id: str | None
    match_type: str
    is_organic: bool

    def as_data(self) -> dict:
        return {"webId": self.web_id, "isNew": self.is_new, "attribution": {
            "mediaSource": self.media_source, "campaignId": self.campaign_id,
            "matchType": self.match_type, "isOrganic": self.is_organic}}


def visit_record(*, app_id: uuid.UUID, body: bodies.VisitBody, ip: str | None,
                 user_agent: str, now: datetime) -> VisitAnswer:
    """Record a page load: the web id's install when it is its first, a session otherwise,
    a re-engagement when a later visit is paid. A visit id seen before answers as it did."""
    stored = _visit_answer(app_id, body.visit_id)
    if stored is not None:
        return stored
    visited_at = bodies.moment(body.timestamp_ms, now=now, earliest=now - waterfall.WINDOW)
    signals = attribution.VisitSignals(
        url=body.url, referrer=body.referrer,
        attribution_click_id=body.params.get("attribution_click_id"),
        utm_source=body.params.get("utm_source"), utm_campaign=body.params.get("utm_campaign"),
        gclid=body.params.get("gclid"), fbclid=body.params.get("fbclid"),
        ttclid=body.params.get("ttclid"))
    decided: list = []

    def decide(click):
        decided.append(attribution.visit_verdict(signals, click=click, visited_at=visited_at))
        return decided[-1]

    outcome = tracking.install_record_decided(
        data=tracking.InstallReport(
            app_id=app_id, platform=WEB_PLATFORM,
            sdk_version=f"web/{body.sdk_version}" if body.sdk_version else "web",
            device_id=body.web_id, ip=ip, user_agent=user_agent,
            consent=web_consent(body.consent, gpc=body.gpc)),
        referrer_click_id=attribution.click_id_of(signals), decide=decide,
        touch_id=body.visit_id, now=visited_at, received_at=now)
    verdict = decided[-1]
    with transaction.atomic():
        web = _web_id_locked(app_id, body.web_id, now=now)
        if web.install_id is None or outcome.created:
            _first_visit(web, outcome.install, signals, body.url)
        elif outcome.reengagement is not None:
            web.media_source = outcome.reengagement.media_source
            web.campaign_id = outcome.reengagement.campaign_id
            web.match_type, web.is_organic = verdict.match_type, False
        web.gpc, web.last_seen_at = body.gpc, max(web.last_seen_at, now)
        web.save()
        try:
            with transaction.atomic():
                Visit.objects.create(
                    app_id=app_id, visit_id=body.visit_id, web_id=body.web_id,
                    visited_at=visited_at, received_at=now, url=body.url,
                    referrer_host=column_text(attribution.referrer_host(signals) or "", 255)
                    or None,
                    media_source=column_text(verdict.media_source or "", 255) or None,
                    campaign_id=column_text(verdict.campaign_id or "", 255) or None,
                    match_type=verdict.match_type, is_install=outcome.created,
                    reengagement_id=outcome.reengagement.id if outcome.reengagement else None,
                    gpc=body.gpc, sdk_version=column_text(body.sdk_version, 64))
        except IntegrityError:  # the same visit, sent twice at once: the first one answers
            pass
    return _visit_answer(app_id, body.visit_id) or _answer(web, is_new=outcome.created)


def _first_visit(web: WebId, install, signals: attribution.VisitSignals, url: str) -> None:
    """The web id's install: where it landed and what credited it."""
    web.install_id = install.id
    web.landing_url = url
    web.referrer_host = column_text(attribution.referrer_host(signals) or "", 255) or None
    web.visit_media_source = install.media_source
    web.visit_campaign = install.campaign_id
    web.media_source, web.campaign_id = install.media_source, install.campaign_id
    web.match_type, web.is_organic = install.match_type, install.is_organic


def _web_id_locked(app_id: uuid.UUID, web_id: str, *, now: datetime) -> WebId:
    """The web id's row, created when this is the first call that names it, locked for the
    transaction (two first calls at once: one creates, the other finds it)."""
    try:
        with transaction.atomic():
            WebId.objects.get_or_create(app_id=app_id, web_id=web_id,
                                        defaults={"first_seen_at": now, "last_seen_at": now})
    except IntegrityError:
        pass
    return WebId.objects.select_for_update().get(app_id=app_id, web_id=web_id)


def _visit_answer(app_id: uuid.UUID, visit_id: uuid.UUID) -> VisitAnswer | None:
    visit = Visit.objects.filter(app_id=app_id, visit_id=visit_id).values_list(
        "web_id", "is_install").first()
    if visit is None:
        return None
    web = WebId.objects.get(app_id=app_id, web_id=visit[0])
    return _answer(web, is_new=visit[1])


def _answer(web: WebId, *, is_new: bool) -> VisitAnswer:
    return VisitAnswer(web_id=web.web_id, is_new=is_new, media_source=web.media_source,
                       campaign_id=web.campaign_id, match_type=web.match_type or "organic",
                       is_organic=web.is_organic)


def event_record(*, app_id: uuid.UUID, body: bodies.EventBody, now: datetime) -> bool:
    """One of the web app's events, stored as the app's events are (revenue from `amount` and
    `currency`); False when its event id was stored before. A web id without a visit yet is
    fine: the event names the web id as its device."""
    checked = check_batch([{
        "event_name": body.event_name, "properties": body.properties,
        "timestamp": body.timestamp_ms, "event_id": body.event_id,
        # The web id stands for the session: the script keeps no session of its own.
        "session_id": body.web_id}], now_ms=int(now.timestamp() * 1000))
    if checked.rejected:
        errors = checked.rejected[0]["errors"]
        raise ValidationFailed(f"Invalid input: {', '.join(errors)}.", errors)
    events = checked.events
    if body.gpc:
        events = [e._replace(consent=web_consent(None, gpc=True)) for e in events]
    outcome = tracking.events_record(app_id=app_id, device_id=body.web_id, events=events,
                                     received_at=now)
    return outcome.duplicates == 0


def identify_record(*, app_id: uuid.UUID, body: bodies.IdentifyBody, now: datetime) -> None:
    """The site's own id of this visitor, on the web id (what joins it to the app's installs
    and events of the same customer, and what privacy requests by customer id find)."""
    with transaction.atomic():
        web = _web_id_locked(app_id, body.web_id, now=now)
        web.customer_user_id = body.customer_user_id
        web.save(update_fields=["customer_user_id"])


def consent_record(*, app_id: uuid.UUID, body: bodies.ConsentBody, now: datetime) -> None:
    """The visitor's consent from `timestamp` on, as the app's consent is recorded; the same
    consent sent again adds nothing. GPC, sent now or on the web id's latest visit, keeps the
    sharing filter on."""
    gpc = body.gpc or WebId.objects.filter(app_id=app_id, web_id=body.web_id, gpc=True).exists()
    applies_from = bodies.moment(body.timestamp_ms, now=now, earliest=now - waterfall.WINDOW)
    consent_services.consent_change(app_id=app_id, device_id=body.web_id,
                                    consent=web_consent(body.consent, gpc=gpc), now=applies_from)
