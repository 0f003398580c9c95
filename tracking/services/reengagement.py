"""Repeat installs and re-engagements (spec: Attribution endpoints, `POST /api/v1/installs` on a
device already installed): a device we know answers its stored install, and a click since its
last attribution, within the window, records a re-engagement (tracking/attribution.py's
`reengagement` decides) and publishes InstallReengaged in the same transaction.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import IntegrityError, transaction

from attribution_site import domain_events
from tracking import attribution, sql
from tracking.models import Reengagement
from tracking.services.clicks import deep_link
from tracking.services.install_types import InstallOutcome


def repeat_install(install_id: uuid.UUID, *, device_clicks: list, now: datetime
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
                          reengagement_deep_link=deep_link(verdict.click.link_id,
                                                                    verdict.click.id))
