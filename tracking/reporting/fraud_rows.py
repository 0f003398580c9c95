"""Rows behind click-flood detection and the fraud report (docs/fraud.md, "Click flooding",
"The fraud report"): per-source clicks and click-to-install times of an app over a span, the
installs of a day range by source, campaign and fraud status with their CTIT buckets, and the
events left out for their blocked install. Each read goes through an index that starts with
the app and the time ((app, clicked_at), (app, installed_at), (app, occurred_at)).

The report reads installs, not the rollups: a fraud status changes after the fact (beat's
post-attribution relabels a week of installs) and installs are few next to clicks and events.
A blocked install is stored organic; the click whose claim was refused is in its trail
(`decision["fraud"]["refused"]`, tracking/fraud_gate.py), and both read it there: a blocked
install counts under the source and campaign that were refused, its CTIT is that click's.
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db.models import Case, Count, F, FloatField, Func, IntegerField, Value, When

from tracking.models import ClickArchive, Event, Install
from tracking.reporting.export_rows import IsoUtc, _stream
from tracking.reporting.rollup_rows import day_bounds

# Statuses whose install a source won (or won and lost later): what flood detection judges.
WON = ("clean", "flagged", "post_attribution")
# Bucket upper bounds in seconds, excluded (fraud.flood.BUCKETS: 0-10 s ... 1-7 d).
BUCKET_ENDS = (10, 60, 600, 3600, 86400)
REFUSED = ("decision__fraud__refused__media_source", "decision__fraud__refused__campaign_id",
           "decision__fraud__refused__clicked_at")


def bucket_of(seconds: float) -> int:
    return next((index for index, end in enumerate(BUCKET_ENDS) if seconds < end),
                len(BUCKET_ENDS))


def refused_ctit(installed_at: datetime, clicked_at: str | None) -> float | None:
    """Seconds from the refused click (ISO text in the trail) to the install."""
    if not clicked_at:
        return None
    return (installed_at - datetime.fromisoformat(clicked_at)).total_seconds()


class Seconds(Func):
    """`installed_at - attributed_touch_time` in seconds, computed by the database."""

    output_field = FloatField()
    template = "EXTRACT(EPOCH FROM (%(expressions)s))"
    arg_joiner = " - "

    def as_sqlite(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection,
                              template="((julianday(%(expressions)s)) * 86400.0)",
                              arg_joiner=") - julianday(", **extra)


def _ctit():
    return Seconds(F("installed_at"), F("attributed_touch_time"))


def _bucket():
    """The CTIT bucket's index (0-5), or None for an install without a click time."""
    whens = [When(ctit__lt=end, then=Value(index)) for index, end in enumerate(BUCKET_ENDS)]
    return Case(When(attributed_touch_time__isnull=True, then=Value(None)), *whens,
                default=Value(len(BUCKET_ENDS)), output_field=IntegerField())


# --- Click-flood detection ------------------------------------------------------------------

@dataclass
class SourceActivity:
    clicks: int = 0
    ctits: list[float] = field(default_factory=list)


def source_activity(*, app_id: uuid.UUID, since: datetime, until: datetime
                    ) -> dict[str, SourceActivity]:
    """Each media source's archived clicks in [since, until), and the CTIT of every install
    it won in that span (post-attribution ones too: a source caught once is still judged on
    what it did)."""
    found: dict[str, SourceActivity] = defaultdict(SourceActivity)
    for source, n in (ClickArchive.objects.filter(app_id=app_id, clicked_at__gte=since,
                                                  clicked_at__lt=until)
                      .values_list("media_source").annotate(n=Count("*")).order_by()):
        found[source].clicks += n
    installs = Install.objects.filter(app_id=app_id, installed_at__gte=since,
                                      installed_at__lt=until)
    for source, ctit in (installs.filter(is_organic=False, attributed_touch_time__isnull=False,
                                         fraud_status__in=WON)
                         .annotate(ctit=_ctit()).values_list("media_source", "ctit")):
        found[source or ""].ctits.append(float(ctit))
    # What a blocked source still tried: its refused claims, so a source blocked all day is
    # still judged on the week it flooded.
    for source, _campaign, clicked_at, installed_at in (installs.filter(fraud_status="blocked")
                                                        .values_list(*REFUSED, "installed_at")):
        ctit = refused_ctit(installed_at, clicked_at)
        if source and ctit is not None:
            found[source].ctits.append(ctit)
    return dict(found)


def apps_with_clicks(*, app_ids: list[uuid.UUID], since: datetime) -> list[uuid.UUID]:
    """The apps among `app_ids` with an archived click since `since` (one indexed probe each)."""
    return [app_id for app_id in app_ids
            if ClickArchive.objects.filter(app_id=app_id, clicked_at__gte=since).exists()]


def credited_installs_of(*, app_id: uuid.UUID, media_source: str, since: datetime,
                         until: datetime, statuses: tuple[str, ...]) -> list[uuid.UUID]:
    """The source's installs of [since, until) whose fraud status is one of `statuses`."""
    return list(Install.objects.filter(
        app_id=app_id, installed_at__gte=since, installed_at__lt=until, is_organic=False,
        media_source=media_source, fraud_status__in=statuses).values_list("id", flat=True))


# --- The fraud report -----------------------------------------------------------------------

@dataclass
class FraudGroup:
    """One (media source, campaign) of the report's range."""

    media_source: str
    campaign_id: str
    installs: Counter = field(default_factory=Counter)  # by fraud status
    by_reason: Counter = field(default_factory=Counter)  # (status, reason) -> installs
    histogram: list[int] = field(default_factory=lambda: [0] * (len(BUCKET_ENDS) + 1))
    blocked_events: int = 0


def fraud_groups(*, app_id: uuid.UUID, start: date, end: date) -> list[FraudGroup]:
    """Installs of days start..end by source, campaign and status with their CTIT buckets,
    the reasons of every install that is not clean, and the events of blocked installs. An
    install's source is the one it was credited to or, blocked, the one whose click was
    refused (its stored media source); organic ones are under ""."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    installs = Install.objects.filter(app_id=app_id, installed_at__gte=since,
                                      installed_at__lt=until)
    groups: dict[tuple[str, str], FraudGroup] = {}

    def group(media_source: str | None, campaign_id: str | None) -> FraudGroup:
        key = (media_source or "", campaign_id or "")
        if key not in groups:
            groups[key] = FraudGroup(*key)
        return groups[key]

    for source, campaign, status, bucket, n in (
            installs.exclude(fraud_status="blocked")
            .annotate(ctit=_ctit()).annotate(bucket=_bucket())
            .values_list("media_source", "campaign_id", "fraud_status", "bucket")
            .annotate(n=Count("*")).order_by()):
        found = group(source, campaign)
        found.installs[status] += n
        if bucket is not None:
            found.histogram[bucket] += n
    marked = installs.exclude(fraud_status__in=("clean", "blocked")).values_list(
        "media_source", "campaign_id", "fraud_status", "fraud_reasons")
    blocked = installs.filter(fraud_status="blocked").values_list(
        *REFUSED, "installed_at", "fraud_reasons")
    for source, campaign, status, reasons in marked:
        for reason in {r.get("reason", "") for r in reasons or ()}:
            group(source, campaign).by_reason[(status, reason)] += 1
    for source, campaign, clicked_at, installed_at, reasons in blocked:
        found = group(source, campaign)
        found.installs["blocked"] += 1
        ctit = refused_ctit(installed_at, clicked_at)
        if ctit is not None:
            found.histogram[bucket_of(ctit)] += 1
        for reason in {r.get("reason", "") for r in reasons or ()}:
            found.by_reason[("blocked", reason)] += 1
    for source, campaign, refused_source, refused_campaign, n in (Event.objects.filter(
            app_id=app_id, occurred_at__gte=since, occurred_at__lt=until, is_blocked=True)
            .values_list("install__media_source", "install__campaign_id",
                         *(f"install__{name}" for name in REFUSED[:2]))
            .annotate(n=Count("*")).order_by()):
        group(source or refused_source, campaign or refused_campaign).blocked_events += n
    return sorted(groups.values(), key=lambda g: (-sum(g.installs.values()), g.media_source,
                                                  g.campaign_id))


# In this order, times as ISO 8601 text (export_rows.IsoUtc), then the refused claim's source,
# campaign and click time (REFUSED: what a blocked install was refused for).
BLOCKED_EXPORT_FIELDS = (
    "id", "installed_at", "device_id", "platform", "fraud_status", "media_source",
    "campaign_id", "match_type", "attributed_touch_time", "fraud_reasons", "ip")


def blocked_installs_for_export(*, app_id: uuid.UUID, start: date, end: date
                                ) -> Iterator[tuple]:
    """Blocked and post-attribution installs of days start..end, oldest first, as tuples of
    BLOCKED_EXPORT_FIELDS and REFUSED (fraud_reasons as stored, a list)."""
    since, until = day_bounds(start)[0], day_bounds(end)[1]
    rows = (Install.objects.filter(app_id=app_id, installed_at__gte=since,
                                   installed_at__lt=until,
                                   fraud_status__in=("blocked", "post_attribution"))
            .order_by("installed_at", "id")
            .annotate(installed_at_text=IsoUtc("installed_at"),
                      attributed_touch_time_text=IsoUtc("attributed_touch_time")))
    names = [f"{name}_text" if name in ("installed_at", "attributed_touch_time") else name
             for name in BLOCKED_EXPORT_FIELDS]
    return _stream(rows.values_list(*names, *REFUSED))


def clicks_since(*, app_id: uuid.UUID, media_source: str, since: datetime, until: datetime
                 ) -> dict[str, int]:
    """The source's archived clicks in [since, until), by campaign: the clicks a block flag
    made ineligible from its detection to the end of its day."""
    return dict(ClickArchive.objects.filter(app_id=app_id, media_source=media_source,
                                            clicked_at__gte=since, clicked_at__lt=until)
                .values_list("campaign_id").annotate(n=Count("*")).order_by())
