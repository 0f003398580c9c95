"""Re-attribution on an ad network's own record (docs/apple.md, "Apple Ads: a correction after the
waterfall"; docs/networks.md, "Google Ads"): Apple's AdServices attribution and Google's App
Conversion API claim move a recorded install to Apple Ads or Google Ads when
tracking/reattribution.py's rule lets them replace what the waterfall decided. Both take the
same path (`_reattribute`): lock the install, add the network's step and answer to its trail,
and on a move rewrite its attribution and publish InstallReattributed in the same transaction
(webhooks, postbacks, rollup repairs of the days touched).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from attribution_site import domain_events
from tracking import reattribution
from tracking.click_values import MAX_LENGTH as CLICK_VALUE_LENGTH
from tracking.models import CampaignName, Install
from tracking.services.columns import column_text


def install_reattribute(*, install_id: uuid.UUID, campaign_id: str, adset: str | None,
                        ad: str | None, touch_time: datetime | None, now: datetime,
                        evidence: dict | None = None) -> bool:
    """Move a recorded install to Apple Ads (`apple_search_ads`) on Apple's attribution record,
    when tracking/reattribution.py lets the record replace what the waterfall decided. Either
    way the trail gets a step saying what Apple said and what came of it. On a move, publishes
    InstallReattributed inside the same transaction (webhooks, postbacks, rollup repairs).
    Returns whether the install moved. `evidence` (Apple's answer) is kept in the trail."""
    return _reattribute(
        install_id=install_id, now=now, moved_already=False,
        move=_Move(match_type=reattribution.APPLE_ADS,
                   media_source=reattribution.APPLE_SEARCH_ADS, campaign_id=campaign_id,
                   adset=adset, ad=ad, touch_time=touch_time, answer_key="apple_ads",
                   answer=evidence),
        rule=lambda install: reattribution.apple_ads_replaces(
            match_type=install.match_type, touch_time=install.attributed_touch_time,
            apple_touch_time=touch_time),
        step=lambda rule: reattribution.apple_ads_step(
            campaign_id=campaign_id, adset=adset, ad=ad, reason=rule.reason,
            replaced=rule.replaces))


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
    return _reattribute(
        install_id=install_id, now=now, moved_already=True,
        move=_Move(match_type=reattribution.GOOGLE_ADS, media_source=reattribution.GOOGLE,
                   campaign_id=claim.campaign_id, adset=claim.ad_group_id, ad=None,
                   touch_time=claim.touch_time, answer_key="google_ads", answer=claim.evidence,
                   keep_touch_time_if_unknown=True, campaign_name=claim.campaign_name,
                   platform_metadata=claim.metadata),
        rule=lambda install: reattribution.google_ads_replaces(
            match_type=install.match_type, media_source=install.media_source,
            click_id=install.click_id, touch_time=install.attributed_touch_time,
            google_touch_time=claim.touch_time),
        step=lambda rule: reattribution.google_ads_step(
            campaign_id=claim.campaign_id, campaign_name=claim.campaign_name,
            adset=claim.ad_group_id, network=claim.network, reason=rule.reason,
            replaced=rule.replaces))


@dataclass(frozen=True)
class _Move:
    """Where a network's claim moves an install, and what the trail keeps of its answer."""

    match_type: str  # the install's new match type; one that has it already moved before
    media_source: str
    campaign_id: str
    adset: str | None
    ad: str | None
    touch_time: datetime | None
    answer_key: str  # the trail's key for the network's answer
    answer: dict | None
    # Google's claim without a time of its own keeps the install's touch time (its gclid in
    # the referrer is the same click); Apple's record replaces it, known or not.
    keep_touch_time_if_unknown: bool = False
    campaign_name: str | None = None  # the network's name for its campaign, for reports
    platform_metadata: dict | None = None  # replaces the install's when given


def _reattribute(*, install_id: uuid.UUID, now: datetime, move: _Move, moved_already: bool,
                 rule: Callable[[Install], reattribution.Replacement],
                 step: Callable[[reattribution.Replacement], dict]) -> bool:
    """Judge the network's claim against the locked install with `rule` and write the trail's
    `step`; on a move, the new attribution and InstallReattributed in one transaction. True
    when the install moved now; `moved_already` when it had moved on an earlier claim (a
    second exchange or answer for the same install); False when the claim left it where it
    was, or the install is gone."""
    with transaction.atomic():
        install = Install.objects.select_for_update().filter(id=install_id).first()
        if install is None:  # its app was deleted meanwhile
            return False
        if install.match_type == move.match_type:
            return moved_already
        replacement = rule(install)
        decision = dict(install.decision or {})
        decision["steps"] = [*decision.get("steps", []), step(replacement)]
        if move.answer is not None:
            decision[move.answer_key] = move.answer
        if not replacement.replaces:
            Install.objects.filter(id=install.id).update(decision=decision)
            return False
        decision["reattributed_from"] = {
            "method": install.match_type, "media_source": install.media_source,
            "campaign_id": install.campaign_id, "confidence": install.confidence}
        decision.update(method=move.match_type, score=100)
        touch_time = move.touch_time
        if move.keep_touch_time_if_unknown:
            touch_time = touch_time or install.attributed_touch_time
        moved = {}
        if move.platform_metadata is not None:
            moved["platform_metadata"] = move.platform_metadata
        # The waterfall's click (and its link) no longer won; the deep link the first launch
        # was given stays, as it was answered.
        Install.objects.filter(id=install.id).update(
            match_type=move.match_type, confidence=100.0, is_organic=False,
            media_source=move.media_source,
            campaign_id=column_text(move.campaign_id, CLICK_VALUE_LENGTH),
            adset=column_text(move.adset, CLICK_VALUE_LENGTH) or None,
            ad=column_text(move.ad, CLICK_VALUE_LENGTH) or None, click_id=None,
            link_id=None, attributed_touch_time=touch_time, decision=decision, **moved)
        if move.campaign_name:
            # Reports label the network's campaign with it (a name already known is skipped).
            CampaignName.objects.bulk_create([CampaignName(
                app_id=install.app_id, media_source=move.media_source,
                campaign_id=column_text(move.campaign_id, CLICK_VALUE_LENGTH),
                name=column_text(move.campaign_name, 255), first_seen_at=now)],
                ignore_conflicts=True)
        domain_events.publish([domain_events.InstallReattributed(
            app_id=install.app_id, install_id=install.id, device_id=install.device_id,
            platform=install.platform, media_source=move.media_source,
            campaign_id=move.campaign_id, adset=move.adset, ad=move.ad,
            match_type=move.match_type, confidence=100.0, installed_at=install.installed_at,
            click_time=touch_time, reattributed_at=now,
            previous_media_source=install.media_source,
            previous_campaign_id=install.campaign_id,
            previous_match_type=install.match_type)])
    return True
