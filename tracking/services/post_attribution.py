"""Fraud verdicts found after the installs were credited (docs/fraud.md, "Post-attribution"):
beat's click-flood check (analytics/flood_checks.py) relabels a source's installs of the last
days; the attribution stays, the trail and the fraud reasons say why, and a post-attribution
install leaves the paid counts through InstallReattributed published in the same transaction.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import transaction

from attribution_site import domain_events
from tracking.models import Install


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
