"""First installs (spec: Attribution endpoints, `POST /api/v1/installs`): attributing an install
reported by the SDK and storing it, with its consent, its campaign's name and what its
subscribers add, in one statement (a WriteBatch; domain events in
attribution_site/domain_events.py). The waterfall's lookup is tracking/sql.py's, its rules
tracking/attribution.py's and tracking/fraud_gate.py's; a device already installed takes the
repeat path (reengagement.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from django.db import IntegrityError

from apps_registry import selectors as app_selectors
from attribution_site import domain_events
from attribution_site.write_batch import WriteBatch
from consent import services as consent_services
from consent.consent_data import Consent
from fraud import verdict as fraud_verdict
from tracking import attribution, fingerprint, fraud_gate, selectors, sql
from tracking.models import CampaignName, Install
from tracking.referrer import parse_install_referrer
from tracking.services.clicks import deep_link
from tracking.services.columns import column_text
from tracking.services.install_types import InstallOutcome, InstallReport
from tracking.services.reengagement import repeat_install
from tracking.useragent import device_info, os_version_of
from tracking.waterfall_inputs import (
    NO_PLATFORM_EVIDENCE,
    ClickCandidate,
    InstallSignals,
    PlatformEvidence,
)

OS_FAMILY_BY_PLATFORM = {"ios": "iOS", "android": "Android"}


# What the ad networks' referrers of an install say (Meta's encrypted data, Google's click): the
# networks app registers its reader at startup (networks/apps.py). Networks imports tracking (its
# claims re-attribute installs), so a reader handed in keeps the dependency one way, as the
# links app's deep-link reader does; without it no install carries a network's referrer.
PlatformEvidenceReader = Callable[..., PlatformEvidence]
_platform_evidence_reader: PlatformEvidenceReader | None = None


def platform_evidence_reader_register(reader: PlatformEvidenceReader | None) -> None:
    """Use `reader` for the networks' referrers of an install (None: no networks)."""
    global _platform_evidence_reader
    _platform_evidence_reader = reader


def _platform_evidence(**install) -> PlatformEvidence:
    if _platform_evidence_reader is None:
        return NO_PLATFORM_EVIDENCE
    return _platform_evidence_reader(**install)


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
    platform = _platform_evidence(
        app_id=data.app_id, platform=data.platform, install_referrer=data.install_referrer,
        meta_install_referrer=data.meta_install_referrer, referrer=referrer)
    if platform.play_referrer_is_networks and referrer is not None and referrer.click_id is None:
        referrer = None  # a network's utm_source and utm_campaign name no campaign of ours
    inputs = sql.attribution_inputs(
        app_id=data.app_id, device_id=device_id,
        referrer_click_id=referrer.click_id if referrer else None,
        ip_prefix=fingerprint.network_key(data.ip), since=now - attribution.WINDOW, until=now)
    if inputs.existing_install_id is not None:
        if data.consent is not None:
            consent_services.consent_record(
                app_id=data.app_id, install_id=inputs.existing_install_id, device_id=device_id,
                applies_from=now, consent=data.consent)
        return repeat_install(inputs.existing_install_id, device_clicks=inputs.device_clicks,
                               now=now)

    signals = install_signals(data, device_id)
    gated = fraud_gate.gated_attribution(
        app_id=data.app_id, installed_at=now, signals=signals, referrer=referrer,
        referrer_click=inputs.referrer_click, device_candidates=inputs.device_clicks,
        fingerprint_candidates=inputs.network_clicks,
        ios_fingerprinting=_ios_fingerprinting(data.app_id, signals), play=data.play,
        signature_problem=data.signature_problem,
        platform_referrers=platform.referrers,
        view_window=platform.view_window or attribution.VIEW_WINDOW)
    return _install_store(data=data, device_id=device_id, verdict=gated.verdict,
                          fraud=gated.fraud, refused=gated.refused, now=now)


def install_record_decided(*, data: InstallReport, referrer_click_id: uuid.UUID | None,
                           decide: Callable[[ClickCandidate | None], attribution.Verdict],
                           touch_id: uuid.UUID, now: datetime,
                           received_at: datetime | None = None) -> InstallOutcome:
    """An install whose attribution its caller decides, from the click it names when that is
    one of the app's clicks of the window: a web visit's (web/attribution.py decides; the
    waterfall's device and fingerprint tiers mean nothing for a browser's first-party web id).
    Stored and published as any first install is. A device already installed takes the
    repeat path, where a paid verdict is a touch after its attribution: a re-engagement, as
    in the app. `touch_id` names that touch when no click record does (a UTM visit).

    `now` is when the caller says it happened (a browser's clock), `received_at` when it
    reached us: the named click counts when it was made before the call arrived, and the
    touch is never placed before that click, since a clock a little behind ours (or a
    millisecond's rounding) must not turn a click's visit organic."""
    device_id = attribution.usable_device_id(data.device_id)
    inputs = sql.attribution_inputs(
        app_id=data.app_id, device_id=device_id, referrer_click_id=referrer_click_id,
        ip_prefix="", since=now - attribution.WINDOW, until=max(now, received_at or now))
    if inputs.referrer_click is not None:
        now = max(now, inputs.referrer_click.clicked_at)
    verdict = decide(inputs.referrer_click)
    if inputs.existing_install_id is not None:
        if data.consent is not None:
            consent_services.consent_record(
                app_id=data.app_id, install_id=inputs.existing_install_id, device_id=device_id,
                applies_from=now, consent=data.consent)
        touches = [] if verdict.is_organic else [verdict.click or ClickCandidate(
            id=touch_id, clicked_at=verdict.touch_time or now,
            media_source=verdict.media_source or "", campaign_id=verdict.campaign_id or "")]
        return repeat_install(inputs.existing_install_id, device_clicks=touches, now=now)
    return _install_store(data=data, device_id=device_id, verdict=verdict,
                          fraud=fraud_verdict.CLEAN_VERDICT, refused=None, now=now)


def _install_store(*, data: InstallReport, device_id: str | None, verdict: attribution.Verdict,
                   fraud: fraud_verdict.Verdict, refused: ClickCandidate | None,
                   now: datetime) -> InstallOutcome:
    """Store a first install with its verdict, in one statement with its consent, its
    campaign's name and what its subscribers add; a race with the same device's first launch
    answers that one as a repeat."""
    install = Install(
        app_id=data.app_id, device_id=device_id, customer_user_id=data.customer_user_id,
        platform=data.platform,
        sdk_version=column_text(data.sdk_version, 64),
        install_referrer=column_text(data.install_referrer, 4096),
        screen_resolution=column_text(data.screen_resolution, 32),
        timezone=column_text(data.timezone, 64), language=column_text(data.language, 64),
        os_version=column_text(data.os_version, 64),
        device_model=column_text(data.device_model, 128),
        ip=data.ip or None, user_agent=column_text(data.user_agent, 1024), installed_at=now,
        att_status=data.att_status,
        match_type=verdict.match_type, confidence=verdict.confidence,
        is_organic=verdict.is_organic, media_source=verdict.media_source,
        campaign_id=verdict.campaign_id, adset=verdict.adset, ad=verdict.ad,
        click_id=verdict.click.id if verdict.click else None,
        link_id=verdict.click.link_id if verdict.click else None,
        # A snapshot: every repeat answers what the first launch got, whatever the link's
        # owner edits or deletes afterwards.
        deep_link=(deep_link(verdict.click.link_id, verdict.click.id) if verdict.click
                   else None),
        attributed_touch_time=verdict.touch_time, decision=verdict.trail,
        platform_metadata=verdict.platform_metadata,
        fraud_status=fraud.status, fraud_reasons=fraud.as_dicts(),
    )
    # One statement writes the install, its consent and what its subscribers add (delivery
    # rows, which read the consent from the event: the row is not written yet).
    batch = WriteBatch()
    batch.insert([install])
    if verdict.campaign_name and install.campaign_id:
        # In the install's statement: a name already known is skipped by its constraint.
        batch.insert([CampaignName(
            app_id=data.app_id, media_source=install.media_source,
            campaign_id=install.campaign_id, name=column_text(verdict.campaign_name, 255),
            first_seen_at=now)], ignore_conflicts=True)
    if data.consent is not None:
        batch.insert([consent_services.record_row(
            app_id=data.app_id, install_id=install.id, device_id=device_id, applies_from=now,
            consent=data.consent)])
    domain_events.publish([_install_attributed(install, data.attribution_token, data.consent,
                                               refused=refused)], batch=batch)
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
