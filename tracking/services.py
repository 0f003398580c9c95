"""Writes of tracking data: clicks, installs with their attribution, re-engagements, events.

Each write publishes its domain events with the fact (see attribution_site/domain_events.py), so
subscribers' rows commit or roll back with it: an install and its rows in one statement (a
WriteBatch), re-engagements and event batches in a transaction. The hot paths' statements,
PostgreSQL's and the fallback for other databases, are in tracking/sql.py; the rules they
apply are in tracking/attribution.py.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from apps_registry import selectors as app_selectors
from attribution_site import domain_events
from attribution_site.ids import uuid7
from attribution_site.write_batch import WriteBatch
from consent import services as consent_services
from consent.consent_data import Consent
from tracking import (
    attribution,
    fingerprint,
    fraud_gate,
    google_referrer,
    partition_sql,
    platform_referrers,
    reattribution,
    selectors,
    sql,
)
from tracking.click_values import MAX_LENGTH as CLICK_VALUE_LENGTH
from tracking.event_batch import CleanEvent
from tracking.models import CampaignName, Click, Install, Reengagement
from tracking.referrer import parse_install_referrer
from tracking.useragent import device_info, os_version_of
from tracking.waterfall_inputs import InstallSignals

logger = logging.getLogger(__name__)

OS_FAMILY_BY_PLATFORM = {"ios": "iOS", "android": "Android"}


def _text(value: str | None, limit: int) -> str:
    """Database-safe text: no NUL (PostgreSQL refuses it), cut to the column's length."""
    return (value or "").replace("\x00", "")[:limit]


# --- Clicks ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClickInput:
    app_id: uuid.UUID
    campaign_id: str
    media_source: str
    adset: str
    ad: str
    advertising_id: str | None
    ip: str | None
    user_agent: str
    accept_language: str
    clicked_at: datetime
    link_id: uuid.UUID | None = None


def click_record(*, click: ClickInput) -> uuid.UUID:
    """Store a click in the hot store and the archive; committed when this returns."""
    device = device_info(click.user_agent)
    advertising_id = attribution.usable_device_id(click.advertising_id)
    if advertising_id is not None and len(advertising_id) > 64:
        advertising_id = None
    user_agent = _text(click.user_agent, 1024)
    values = {
        "id": uuid7(),
        "app_id": click.app_id,
        "campaign_id": _text(click.campaign_id, CLICK_VALUE_LENGTH),
        "media_source": _text(click.media_source, CLICK_VALUE_LENGTH),
        "adset": _text(click.adset, CLICK_VALUE_LENGTH),
        "ad": _text(click.ad, CLICK_VALUE_LENGTH),
        "advertising_id": advertising_id,
        "ip": click.ip or None,
        "ip_prefix": fingerprint.network_key(click.ip),
        "user_agent": user_agent,
        "accept_language": _text(click.accept_language, 255),
        "os_family": device.os_family,
        "os_version": device.os_version,
        "device_model": device.device_model,
        "fingerprint": fingerprint.click_fingerprint(click.ip or "", user_agent),
        "clicked_at": click.clicked_at,
        "link_id": click.link_id,
    }
    sql.click_insert(values)
    return values["id"]


# --- Deep links -----------------------------------------------------------------------------

# What a short link tells the app to open ({value, params, link_id}), by the link's id: the
# links app registers its reader at startup (links/apps.py). Tracking knows a click's link only
# by id, and links already imports tracking to record the clicks its links bring, so a reader
# handed in keeps the dependency one way and tracking whole without the links app (no link:
# no deep link), as domain_events does for subscribers.
DeepLinkReader = Callable[[uuid.UUID], dict | None]
_deep_link_reader: DeepLinkReader | None = None


def deep_link_reader_register(reader: DeepLinkReader | None) -> None:
    """Use `reader` for the deep link of a link-borne click (None: links are not installed)."""
    global _deep_link_reader
    _deep_link_reader = reader


def _deep_link(link_id: uuid.UUID | None) -> dict | None:
    """The link's deep link now; only clicks that came through a link cost a lookup."""
    if link_id is None or _deep_link_reader is None:
        return None
    return _deep_link_reader(link_id)


# --- Installs -------------------------------------------------------------------------------

@dataclass(frozen=True)
class InstallReport:
    """An install as the SDK reported it, with the request's address and User-Agent."""

    app_id: uuid.UUID
    platform: str
    sdk_version: str
    device_id: str | None = None
    install_referrer: str = ""
    screen_resolution: str = ""
    timezone: str = ""
    language: str = ""
    os_version: str = ""
    device_model: str = ""
    ip: str | None = None
    user_agent: str = ""
    att_status: str = ""  # App Tracking Transparency on iOS; "" when the SDK did not say
    attribution_token: str = ""  # Apple's AdServices token, exchanged after the install
    consent: Consent | None = None  # `consent_data` as sent with the install
    customer_user_id: str | None = None  # the app's own user id (AppsFlyer's CUID)
    # Meta's install referrer, read by the SDK from the Facebook or Instagram app.
    meta_install_referrer: platform_referrers.MetaInstallReferrer | None = None
    play: fraud_gate.PlaySignals = fraud_gate.PlaySignals()  # Play's Install Referrer times
    signature_problem: str | None = None  # a signature the app reports on but does not enforce


@dataclass(frozen=True)
class InstallOutcome:
    install: Install
    created: bool
    reengagement: Reengagement | None = None
    # The deep link of the re-engagement's click, when it came through a link (read now: the
    # re-engagement is answered once, so nothing needs to keep it).
    reengagement_deep_link: dict | None = None


def install_signals(data: InstallReport, device_id: str | None) -> InstallSignals:
    """What the install request says about the device, filling gaps from its User-Agent."""
    agent = device_info(data.user_agent)
    return InstallSignals(
        platform=data.platform,
        device_id=device_id,
        ip=data.ip,
        os_family=OS_FAMILY_BY_PLATFORM.get(data.platform, ""),
        os_version=os_version_of(data.os_version) or agent.os_version,
        device_model=data.device_model or agent.device_model,
        language=data.language,
        att_status=data.att_status,
    )


def install_record(*, data: InstallReport, now: datetime) -> InstallOutcome:
    """Attribute and store a first install; a repeat returns the stored result."""
    device_id = attribution.usable_device_id(data.device_id)
    referrer = parse_install_referrer(data.install_referrer)
    platform = platform_referrers.platform_evidence(
        app_id=data.app_id, platform=data.platform, install_referrer=data.install_referrer,
        meta_install_referrer=data.meta_install_referrer)
    if platform.play_referrer_is_metas and referrer is not None and referrer.click_id is None:
        referrer = None  # Meta's own utm_source and utm_campaign name no campaign
    # Google Ads' click in the Play referrer: a platform's click, after Meta's (docs/networks.md,
    # "Where each claim sits"); the referrer's own utm_source no longer names the source.
    google = google_referrer.platform_referrers(
        data.install_referrer if data.platform == "android" else "",
        campaign_id=referrer.campaign_id if referrer else None)
    if google and referrer is not None and referrer.click_id is None:
        referrer = None
    inputs = sql.attribution_inputs(
        app_id=data.app_id, device_id=device_id,
        referrer_click_id=referrer.click_id if referrer else None,
        ip_prefix=fingerprint.network_key(data.ip), since=now - attribution.WINDOW, until=now)
    if inputs.existing_install_id is not None:
        if data.consent is not None:
            consent_services.consent_record(
                app_id=data.app_id, install_id=inputs.existing_install_id, device_id=device_id,
                applies_from=now, consent=data.consent)
        return _repeat_install(inputs.existing_install_id, device_clicks=inputs.device_clicks,
                               now=now)

    signals = install_signals(data, device_id)
    gated = fraud_gate.gated_attribution(
        app_id=data.app_id, installed_at=now, signals=signals, referrer=referrer,
        referrer_click=inputs.referrer_click, device_candidates=inputs.device_clicks,
        fingerprint_candidates=inputs.network_clicks,
        ios_fingerprinting=_ios_fingerprinting(data.app_id, signals), play=data.play,
        signature_problem=data.signature_problem,
        platform_referrers=(*platform.referrers, *google), view_window=platform.view_window)
    verdict = gated.verdict
    install = Install(
        app_id=data.app_id, device_id=device_id, customer_user_id=data.customer_user_id,
        platform=data.platform,
        sdk_version=_text(data.sdk_version, 64),
        install_referrer=_text(data.install_referrer, 4096),
        screen_resolution=_text(data.screen_resolution, 32),
        timezone=_text(data.timezone, 64), language=_text(data.language, 64),
        os_version=_text(data.os_version, 64), device_model=_text(data.device_model, 128),
        ip=data.ip or None, user_agent=_text(data.user_agent, 1024), installed_at=now,
        att_status=data.att_status,
        match_type=verdict.match_type, confidence=verdict.confidence,
        is_organic=verdict.is_organic, media_source=verdict.media_source,
        campaign_id=verdict.campaign_id, adset=verdict.adset, ad=verdict.ad,
        click_id=verdict.click.id if verdict.click else None,
        link_id=verdict.click.link_id if verdict.click else None,
        # A snapshot: every repeat answers what the first launch got, whatever the link's
        # owner edits or deletes afterwards.
        deep_link=_deep_link(verdict.click.link_id) if verdict.click else None,
        attributed_touch_time=verdict.touch_time, decision=verdict.trail,
        platform_metadata=verdict.platform_metadata,
        fraud_status=gated.fraud.status, fraud_reasons=gated.fraud.as_dicts(),
    )
    # One statement writes the install, its consent and what its subscribers add (delivery
    # rows, which read the consent from the event: the row is not written yet).
    batch = WriteBatch()
    batch.insert([install])
    if verdict.campaign_name and install.campaign_id:
        # In the install's statement: a name already known is skipped by its constraint.
        batch.insert([CampaignName(
            app_id=data.app_id, media_source=install.media_source,
            campaign_id=install.campaign_id, name=_text(verdict.campaign_name, 255),
            first_seen_at=now)], ignore_conflicts=True)
    if data.consent is not None:
        batch.insert([consent_services.record_row(
            app_id=data.app_id, install_id=install.id, device_id=device_id, applies_from=now,
            consent=data.consent)])
    domain_events.publish([_install_attributed(install, data.attribution_token, data.consent,
                                               refused=gated.refused)], batch=batch)
    try:
        batch.execute()
    except IntegrityError:
        # The same device's first launch raced us here; its install stands, this is a repeat.
        existing = selectors.install_for_device(app_id=data.app_id, device_id=device_id or "")
        if existing is None:
            raise
        if data.consent is not None:
            consent_services.consent_record(
                app_id=data.app_id, install_id=existing.id, device_id=device_id,
                applies_from=now, consent=data.consent)
        return InstallOutcome(install=existing, created=False)
    return InstallOutcome(install=install, created=True)


def _ios_fingerprinting(app_id: uuid.UUID, signals: InstallSignals) -> str:
    """The app's policy, read only when it can matter (an iOS install without tracking
    consent), from the process's copy of the app (no query with Redis up)."""
    if attribution.tracking_authorized(signals):
        return attribution.IOS_FINGERPRINTING_WITH_CONSENT  # not consulted for this install
    target = app_selectors.app_target(app_id=app_id)
    return target.ios_fingerprinting if target else attribution.IOS_FINGERPRINTING_WITH_CONSENT


def _install_attributed(install: Install, attribution_token: str = "",
                        consent: Consent | None = None, refused=None
                        ) -> domain_events.InstallAttributed:
    return domain_events.InstallAttributed(
        app_id=install.app_id, install_id=install.id, device_id=install.device_id,
        platform=install.platform, media_source=install.media_source,
        campaign_id=install.campaign_id, match_type=install.match_type,
        confidence=install.confidence, is_organic=install.is_organic,
        installed_at=install.installed_at, click_id=install.click_id,
        click_time=install.attributed_touch_time, attribution_token=attribution_token,
        consent=consent, fraud_status=install.fraud_status,
        fraud_reasons=tuple(install.fraud_reasons),
        rejected_media_source=refused.media_source or None if refused else None,
        rejected_campaign_id=refused.campaign_id or None if refused else None,
        rejected_click_time=refused.clicked_at if refused else None,
        install_referrer=install.install_referrer, os_version=install.os_version,
        sdk_version=install.sdk_version, ip=install.ip, user_agent=install.user_agent)


def _repeat_install(install_id: uuid.UUID, *, device_clicks: list, now: datetime
                    ) -> InstallOutcome:
    """A device we know: a click since its last attribution is a re-engagement. The device's
    clicks of the window came with the waterfall's lookup."""
    install, last_reengagement_click_at = sql.install_for_repeat(install_id=install_id)
    verdict = attribution.reengagement(
        now=now, installed_at=install.installed_at,
        last_reengagement_click_at=last_reengagement_click_at, device_clicks=device_clicks)
    if verdict is None:
        return InstallOutcome(install=install, created=False)
    reengagement = Reengagement(
        app_id=install.app_id, install=install, click_id=verdict.click.id,
        media_source=verdict.media_source, campaign_id=verdict.campaign_id,
        clicked_at=verdict.touch_time, reengaged_at=now)
    try:
        with transaction.atomic():
            reengagement.save(force_insert=True)
            domain_events.publish([domain_events.InstallReengaged(
                app_id=install.app_id, install_id=install.id,
                reengagement_id=reengagement.id, device_id=install.device_id,
                platform=install.platform, media_source=reengagement.media_source,
                campaign_id=reengagement.campaign_id, match_type=verdict.match_type,
                confidence=verdict.confidence, click_id=verdict.click.id,
                click_time=verdict.touch_time, reengaged_at=now,
                original_media_source=install.media_source)])
    except IntegrityError:  # a concurrent repeat recorded this click already
        return InstallOutcome(install=install, created=False)
    return InstallOutcome(install=install, created=False, reengagement=reengagement,
                          reengagement_deep_link=_deep_link(verdict.click.link_id))


# --- Re-attribution -------------------------------------------------------------------------

def install_reattribute(*, install_id: uuid.UUID, campaign_id: str, adset: str | None,
                        ad: str | None, touch_time: datetime | None, now: datetime,
                        evidence: dict | None = None) -> bool:
    """Move a recorded install to Apple Ads (`apple_search_ads`) on Apple's attribution record,
    when tracking/reattribution.py lets the record replace what the waterfall decided. Either
    way the trail gets a step saying what Apple said and what came of it. On a move, publishes
    InstallReattributed inside the same transaction (webhooks, postbacks, rollup repairs).
    Returns whether the install moved. `evidence` (Apple's answer) is kept in the trail."""
    with transaction.atomic():
        install = Install.objects.select_for_update().filter(id=install_id).first()
        if install is None:  # its app was deleted meanwhile
            return False
        rule = reattribution.apple_ads_replaces(
            match_type=install.match_type, touch_time=install.attributed_touch_time,
            apple_touch_time=touch_time)
        if install.match_type == reattribution.APPLE_ADS:
            return False  # a second exchange of the same install: it moved already
        decision = dict(install.decision or {})
        decision["steps"] = [*decision.get("steps", []), reattribution.apple_ads_step(
            campaign_id=campaign_id, adset=adset, ad=ad, reason=rule.reason,
            replaced=rule.replaces)]
        if evidence is not None:
            decision["apple_ads"] = evidence
        if not rule.replaces:
            Install.objects.filter(id=install.id).update(decision=decision)
            return False
        decision["reattributed_from"] = {
            "method": install.match_type, "media_source": install.media_source,
            "campaign_id": install.campaign_id, "confidence": install.confidence}
        decision.update(method=reattribution.APPLE_ADS, score=100)
        # The waterfall's click (and its link) no longer won; the deep link the first launch
        # was given stays, as it was answered.
        Install.objects.filter(id=install.id).update(
            match_type=reattribution.APPLE_ADS, confidence=100.0, is_organic=False,
            media_source=reattribution.APPLE_SEARCH_ADS,
            campaign_id=_text(campaign_id, CLICK_VALUE_LENGTH),
            adset=_text(adset, CLICK_VALUE_LENGTH) or None,
            ad=_text(ad, CLICK_VALUE_LENGTH) or None, click_id=None,
            link_id=None, attributed_touch_time=touch_time, decision=decision)
        domain_events.publish([domain_events.InstallReattributed(
            app_id=install.app_id, install_id=install.id, device_id=install.device_id,
            platform=install.platform, media_source=reattribution.APPLE_SEARCH_ADS,
            campaign_id=campaign_id, adset=adset, ad=ad, match_type=reattribution.APPLE_ADS,
            confidence=100.0, installed_at=install.installed_at, click_time=touch_time,
            reattributed_at=now, previous_media_source=install.media_source,
            previous_campaign_id=install.campaign_id,
            previous_match_type=install.match_type)])
    return True


@dataclass(frozen=True)
class GoogleClaim:
    """Google's answer to an install's first_open, as google_ads read it."""

    campaign_id: str
    campaign_name: str | None
    ad_group_id: str | None
    network: str | None
    touch_time: datetime | None
    evidence: dict  # Google's answer as received and as read, kept in the trail
    metadata: dict  # every id and name Google gave, kept on the install when it moves


def install_reattribute_google(*, install_id: uuid.UUID, claim: GoogleClaim, now: datetime
                               ) -> bool:
    """Move a recorded install to Google Ads (`google`) on Google's claim, when
    tracking/reattribution.py lets the claim replace what the waterfall decided; the trail gets
    a step either way. On a move, publishes InstallReattributed inside the same transaction
    (re-attribution webhook, the `google` postback, rollups of the days touched). Returns
    whether the install was credited to Google (the cross-network answer tells Google so)."""
    with transaction.atomic():
        install = Install.objects.select_for_update().filter(id=install_id).first()
        if install is None:  # its app was deleted meanwhile
            return False
        if install.match_type == reattribution.GOOGLE_ADS:
            return True  # a second answer for the same install: it moved already
        rule = reattribution.google_ads_replaces(
            match_type=install.match_type, media_source=install.media_source,
            click_id=install.click_id, touch_time=install.attributed_touch_time,
            google_touch_time=claim.touch_time)
        decision = dict(install.decision or {})
        decision["steps"] = [*decision.get("steps", []), reattribution.google_ads_step(
            campaign_id=claim.campaign_id, campaign_name=claim.campaign_name,
            adset=claim.ad_group_id, network=claim.network, reason=rule.reason,
            replaced=rule.replaces)]
        decision["google_ads"] = claim.evidence
        if not rule.replaces:
            Install.objects.filter(id=install.id).update(decision=decision)
            return False
        decision["reattributed_from"] = {
            "method": install.match_type, "media_source": install.media_source,
            "campaign_id": install.campaign_id, "confidence": install.confidence}
        decision.update(method=reattribution.GOOGLE_ADS, score=100)
        touch_time = claim.touch_time or install.attributed_touch_time
        Install.objects.filter(id=install.id).update(
            match_type=reattribution.GOOGLE_ADS, confidence=100.0, is_organic=False,
            media_source=reattribution.GOOGLE,
            campaign_id=_text(claim.campaign_id, CLICK_VALUE_LENGTH),
            adset=_text(claim.ad_group_id, CLICK_VALUE_LENGTH) or None, ad=None,
            click_id=None, link_id=None, attributed_touch_time=touch_time, decision=decision,
            platform_metadata=claim.metadata)
        if claim.campaign_name:
            # Reports label Google's campaign with it (a name already known is skipped).
            CampaignName.objects.bulk_create([CampaignName(
                app_id=install.app_id, media_source=reattribution.GOOGLE,
                campaign_id=_text(claim.campaign_id, CLICK_VALUE_LENGTH),
                name=_text(claim.campaign_name, 255), first_seen_at=now)],
                ignore_conflicts=True)
        domain_events.publish([domain_events.InstallReattributed(
            app_id=install.app_id, install_id=install.id, device_id=install.device_id,
            platform=install.platform, media_source=reattribution.GOOGLE,
            campaign_id=claim.campaign_id, adset=claim.ad_group_id, ad=None,
            match_type=reattribution.GOOGLE_ADS, confidence=100.0,
            installed_at=install.installed_at, click_time=touch_time, reattributed_at=now,
            previous_media_source=install.media_source,
            previous_campaign_id=install.campaign_id,
            previous_match_type=install.match_type)])
    return True


def installs_fraud_relabel(*, install_ids: list[uuid.UUID], status: str, reason: dict,
                           step: str, now: datetime) -> int:
    """A verdict found after the installs were credited (docs/fraud.md, "Post-attribution"):
    beat's click-flood check on a source's installs of the last days. Each install still
    `clean` (or `flagged`, when the new status is `post_attribution`) takes `status`, `reason`
    ({reason, value, sub_reason}) joins its reasons and the trail gets `step`; the attribution
    stays (not re-credited). A post-attribution install leaves the paid counts: published as
    InstallReattributed with the same attribution and the new status, inside the same
    transaction, so the rollup days are rebuilt (an UPDATE is no arrival, tracking/changes.py)
    and webhooks say so. Returns how many installs changed."""
    allowed = ("clean", "flagged") if status == "post_attribution" else ("clean",)
    changed = []
    with transaction.atomic():
        for install in (Install.objects.select_for_update()
                        .filter(id__in=install_ids, fraud_status__in=allowed).order_by("id")):
            decision = dict(install.decision or {})
            decision["steps"] = [*decision.get("steps", []), {"method": "fraud",
                                                              "outcome": step}]
            reasons = [*(install.fraud_reasons or []), reason]
            Install.objects.filter(id=install.id).update(fraud_status=status,
                                                         fraud_reasons=reasons,
                                                         decision=decision)
            changed.append((install, reasons))
        if status == "post_attribution" and changed:
            domain_events.publish([domain_events.InstallReattributed(
                app_id=install.app_id, install_id=install.id, device_id=install.device_id,
                platform=install.platform, media_source=install.media_source or "",
                campaign_id=install.campaign_id, adset=install.adset, ad=install.ad,
                match_type=install.match_type, confidence=install.confidence,
                installed_at=install.installed_at, click_time=install.attributed_touch_time,
                reattributed_at=now, previous_media_source=install.media_source,
                previous_campaign_id=install.campaign_id,
                previous_match_type=install.match_type, is_organic=install.is_organic,
                fraud_status=status, fraud_reasons=tuple(reasons))
                for install, reasons in changed])
    return len(changed)


# --- Events ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class EventsOutcome:
    accepted: int
    duplicates: int


def events_record(*, app_id: uuid.UUID, device_id: str | None, events: list[CleanEvent],
                  received_at: datetime) -> EventsOutcome:
    """Store a validated batch with one bulk statement; repeated client event ids are skipped.

    The batch first claims its client event ids (EventKey) in the transaction that stores the
    events: only the events whose id it claimed are stored, whatever day partition an earlier
    try landed in, and a concurrent retry waits on the uncommitted keys and then finds them."""
    if not events:
        return EventsOutcome(accepted=0, duplicates=0)
    device_id = attribution.usable_device_id(device_id)
    with transaction.atomic():
        start = sql.event_batch_start(
            app_id=app_id, device_id=device_id,
            event_ids={e.event_id for e in events if e.event_id is not None}, size=len(events))
        install_id, media_source, campaign_id, is_blocked = start.link or (None, None, None,
                                                                           False)
        fresh = _with_claimed_ids(events, start.claimed)
        ids = sql.events_insert(app_id=app_id, install_id=install_id, device_id=device_id,
                                events=fresh, received_at=received_at, ids=start.ids,
                                is_blocked=is_blocked)
        changes = [(e.occurred_at, e.consent) for e in fresh if e.consent is not None]
        if changes and (install_id is not None or device_id is not None):
            consent_services.consents_record(app_id=app_id, install_id=install_id,
                                             device_id=device_id, changes=changes)
        domain_events.publish([
            domain_events.EventTracked(
                app_id=app_id, event_id=event_id, device_id=device_id,
                install_id=install_id, event_name=e.event_name, properties=e.properties,
                occurred_at=e.occurred_at, revenue_amount=e.revenue_amount,
                revenue_currency=e.revenue_currency, media_source=media_source,
                campaign_id=campaign_id, consent=e.consent, is_blocked=is_blocked)
            for event_id, e in zip(ids, fresh, strict=True)])
    return EventsOutcome(accepted=len(events), duplicates=len(events) - len(fresh))


def _with_claimed_ids(events: list[CleanEvent], claimed: set[str]) -> list[CleanEvent]:
    """The events to store: those without a client id, and the first event of each id this
    batch claimed (a batch repeating an id stores it once)."""
    unused = set(claimed)
    fresh = []
    for event in events:
        if event.event_id is not None:
            if event.event_id not in unused:
                continue
            unused.remove(event.event_id)
        fresh.append(event)
    return fresh


# --- Retention ------------------------------------------------------------------------------

# Clicks stay in the hot store this long past the window, so the analytics pass can read a
# new install's whole window there (reporting.recent_device_clicks) even just after a prune.
HOT_STORE_SLACK = timedelta(hours=1)


def clicks_prune(*, now: datetime, retention_days: int = attribution.WINDOW.days,
                 batch_size: int = 10_000, progress=None) -> int:
    """Remove hot-store clicks older than the window and HOT_STORE_SLACK; the archive stays.
    How many went; `progress(so_far)` after each step. Running it twice is harmless.

    On PostgreSQL each partition (a week) wholly older than the cutoff is detached and
    dropped (constant time whatever it holds); one straddling the cutoff waits for a later run,
    and the default partition's expired rows are deleted in batches. Elsewhere, batches of
    deletes: each stays short (no long lock, bounded WAL)."""
    cutoff = now - timedelta(days=retention_days) - HOT_STORE_SLACK
    deleted = 0

    def advance(count: int) -> None:
        nonlocal deleted
        deleted += count
        if progress is not None:
            progress(deleted)

    if partition_sql.in_use():
        partition_sql.hot_partitions_drop(cutoff=cutoff, progress=advance)
        while count := partition_sql.hot_default_delete(cutoff=cutoff, batch_size=batch_size):
            advance(count)
        return deleted
    while True:
        ids = list(Click.objects.filter(clicked_at__lt=cutoff)
                   .values_list("id", flat=True)[:batch_size])
        if not ids:
            return deleted
        Click.objects.filter(id__in=ids).delete()
        advance(len(ids))
