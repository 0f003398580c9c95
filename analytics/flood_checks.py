"""Beat's click-flood check and post-attribution (the `click_flood` rule; docs/fraud.md,
"Click flooding", "Post-attribution"). Never on the request path.

Every run (CELERY_BEAT_SCHEDULE, every 10 minutes), for each app with clicks in the last 7
days and its `click_flood` rule on: each media source's clicks and click-to-install times
over the 7 days are judged by fraud/flood.py, however few its installs: its late installs
against published clean traffic and the app's other sources, its conversion against theirs.
Every source with an install is judged on every run. A source found
flooding gets the day's SourceFlag (fraud's table, which the request path reads through
`fraud.selectors.flooding_sources`): in block mode its clicks are not eligible for the rest of
the UTC day, in flag mode its installs are flagged. Its installs of the same 7 days, already
credited, are then relabelled by tracking: block mode labels them `post_attribution` (out of
the paid counts, not re-credited, a re-attribution webhook says so), flag mode flags them.
Here because analytics already reads tracking's rows for beat and may call fraud; fraud
imports neither.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from apps_registry.selectors import existing_app_ids
from fraud import flood, verdict
from fraud import selectors as fraud_selectors
from fraud import services as fraud_services
from tracking import attribution
from tracking import services as tracking_services
from tracking.reporting import fraud_rows

logger = logging.getLogger(__name__)

# A flood's clicks reach as far back as a click may still win an install: the window.
LOOK_BACK = attribution.WINDOW


@dataclass(frozen=True)
class Flagged:
    app_id: uuid.UUID
    media_source: str
    mode: str
    relabelled: int
    finding: flood.Finding


def flood_check(*, now: datetime) -> list[Flagged]:
    """Judge every app's sources over the last 7 days; flag the flooding ones for today and
    relabel their credited installs of those days. Returns what was flagged."""
    since = now - LOOK_BACK
    day = now.astimezone(UTC).date()
    flagged = []
    for app_id in fraud_rows.apps_with_clicks(app_ids=sorted(existing_app_ids()), since=since):
        mode = fraud_selectors.settings_of(app_id).click_flood_mode
        if mode == verdict.OFF:
            continue
        activity = fraud_rows.source_activity(app_id=app_id, since=since, until=now)
        samples = [flood.SourceSample(source, found.clicks, tuple(found.ctits))
                   for source, found in activity.items() if source]
        for finding in flood.flooding(samples):
            if not finding.flooding:
                continue
            fraud_services.source_flag_record(app_id=app_id, media_source=finding.media_source,
                                              day=day, mode=mode, stats=finding.stats(),
                                              now=now)
            relabelled = _relabel(app_id, finding, mode, since=since, now=now)
            logger.warning("click flood: app %s, source %s (%s); %d installs relabelled: %s",
                           app_id, finding.media_source, mode, relabelled,
                           finding.explanation)
            flagged.append(Flagged(app_id, finding.media_source, mode, relabelled, finding))
    return flagged


def _relabel(app_id: uuid.UUID, finding: flood.Finding, mode: str, *, since: datetime,
             now: datetime) -> int:
    status = verdict.POST_ATTRIBUTION if mode == verdict.BLOCK else verdict.FLAGGED
    statuses = ("clean", verdict.FLAGGED) if mode == verdict.BLOCK else ("clean",)
    install_ids = fraud_rows.credited_installs_of(
        app_id=app_id, media_source=finding.media_source, since=since, until=now,
        statuses=statuses)
    if not install_ids:
        return 0
    rate = finding.conversion_rate or 0.0
    reason = verdict.Reason(reason=verdict.CLICK_FLOOD, value=round(rate * 100, 4),
                            sub_reason=status).as_dict()
    step = (f"click flooding found after the install: {finding.media_source} "
            f"{finding.explanation.removeprefix('flooding: ')}; "
            + ("labelled post-attribution, out of the paid installs" if status ==
               verdict.POST_ATTRIBUTION else "flagged, still credited"))
    return tracking_services.installs_fraud_relabel(install_ids=install_ids, status=status,
                                                    reason=reason, step=step, now=now)
