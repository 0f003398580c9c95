"""The fraud report (docs/fraud.md, "The fraud report"): per media source
and campaign, the installs of the range by fraud status and reason, post-attribution installs,
the clicks a click-flood block made ineligible and the bots rule caught, the events of blocked
installs, and the
click-to-install time histogram in fixed buckets (fraud/flood.py); with the app's totals, the
requests refused for their signature and the day's click-flood flags.

Read from tracking's install rows (tracking/reporting/fraud_rows.py), not the rollups: a
status changes after the fact, and installs are few. An install's source is the one it was
credited to, or for a blocked one the one whose click was refused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

from analytics.queries import Period
from fraud import flood, verdict
from fraud import selectors as fraud_selectors
from tracking.reporting import fraud_rows

STATUSES = verdict.STATUSES  # clean, flagged, blocked, post_attribution


@dataclass
class FraudRow:
    media_source: str
    campaign_id: str
    installs: Counter = field(default_factory=Counter)  # by status
    by_reason: Counter = field(default_factory=Counter)  # (status, reason) -> installs
    histogram: list[int] = field(default_factory=lambda: [0] * len(flood.BUCKETS))
    blocked_clicks: int = 0
    clicks_by_reason: Counter = field(default_factory=Counter)  # (reason, mode) -> clicks
    blocked_events: int = 0

    @property
    def total_installs(self) -> int:
        return sum(self.installs.values())

    def absorb(self, other: FraudRow) -> None:
        self.installs.update(other.installs)
        self.by_reason.update(other.by_reason)
        self.histogram = [a + b for a, b in zip(self.histogram, other.histogram, strict=True)]
        self.blocked_clicks += other.blocked_clicks
        self.clicks_by_reason.update(other.clicks_by_reason)
        self.blocked_events += other.blocked_events


@dataclass(frozen=True)
class FraudReport:
    totals: FraudRow
    sources: list[FraudRow]  # per media source, campaigns summed
    campaigns: list[FraudRow]
    refused_requests: dict[str, int]  # signature refusals by sub-reason
    flags: list[fraud_selectors.SourceFlagRow]


def fraud(*, period: Period) -> FraudReport:
    campaigns: dict[tuple[str, str], FraudRow] = {}

    def row(media_source: str, campaign_id: str) -> FraudRow:
        key = (media_source, campaign_id)
        if key not in campaigns:
            campaigns[key] = FraudRow(media_source, campaign_id)
        return campaigns[key]

    for group in fraud_rows.fraud_groups(app_id=period.app_id, start=period.start,
                                         end=period.end):
        found = row(group.media_source, group.campaign_id)
        found.installs.update(group.installs)
        found.by_reason.update(group.by_reason)
        found.histogram = list(group.histogram)
        found.blocked_events += group.blocked_events
    flags = fraud_selectors.source_flags(app_id=period.app_id, start=period.start,
                                         end=period.end)
    for flag in flags:
        if flag.mode != verdict.BLOCK:
            continue
        end_of_day = datetime.combine(flag.day, time.min, tzinfo=UTC) + timedelta(days=1)
        for campaign_id, n in fraud_rows.clicks_since(
                app_id=period.app_id, media_source=flag.media_source, since=flag.detected_at,
                until=end_of_day).items():
            found = row(flag.media_source, campaign_id)
            found.blocked_clicks += n
            found.clicks_by_reason[(verdict.CLICK_FLOOD, verdict.BLOCK)] += n
    # Bots: blocked ones were never recorded, flagged ones were; counted per source only.
    for (source, mode), n in fraud_selectors.bot_clicks(
            app_id=period.app_id, start=period.start, end=period.end).items():
        found = row(source, "")
        found.clicks_by_reason[(verdict.BOTS, mode)] += n
        if mode == verdict.BLOCK:
            found.blocked_clicks += n
    ordered = sorted(campaigns.values(), key=lambda r: (-r.total_installs, r.media_source,
                                                        r.campaign_id))
    sources: dict[str, FraudRow] = {}
    totals = FraudRow("", "")
    for found in ordered:
        sources.setdefault(found.media_source, FraudRow(found.media_source, "")).absorb(found)
        totals.absorb(found)
    return FraudReport(
        totals=totals,
        sources=sorted(sources.values(), key=lambda r: (-r.total_installs, r.media_source)),
        campaigns=ordered,
        refused_requests=fraud_selectors.signature_refusals(
            app_id=period.app_id, start=period.start, end=period.end),
        flags=flags)
