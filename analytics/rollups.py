"""Keeping the daily rollups up to date (issue: Scale; design in docs/analytics.md).

Nothing runs on the SDK hot paths. A beat task (`analytics.rollups_refresh`, every
ANALYTICS_ROLLUP_INTERVAL_SECONDS) does two things:
1. discover: scan what tracking recorded since the last scan, through a cutoff kept
   ANALYTICS_ROLLUP_SAFETY_SECONDS behind the clock so no transaction can still be open below
   it (installs and clicks by their server time, events by id), and queue each touched
   (app, kind, day) in RollupDirtyDay; the watermarks move in the same transaction;
2. drain: rebuild queued days one by one (install days first: event days read the touchpoint
   weights they write), each in its own transaction that also dequeues it.
Rebuilding a day recomputes it whole from tracking's rows, so a repeated or concurrent run
changes nothing, and a crash leaves the day queued. Data shows up in analytics within about
safety + interval + the drain's run time (2 to 3 minutes by default).
"""

from __future__ import annotations

import logging
import threading
import time as monotonic_clock
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Min
from django.utils import timezone

from analytics import touch_credit
from analytics.models import (
    CohortRevenueStat,
    DailyClickStat,
    DailyCreditedRevenueStat,
    DailyCreditStat,
    DailyInstallStat,
    DailyRetentionStat,
    DailyRevenueStat,
    InstallTouchpoint,
    RollupDirtyDay,
    RollupKind,
    RollupState,
    SourceType,
)
from tracking import reporting

logger = logging.getLogger(__name__)

TOUCHPOINT_WINDOW = timedelta(days=7)  # spec: Limits, "Click retention and attribution window"
RETENTION_MAX_AGE = 30  # the oldest day n of Dn retention kept (D1, D7, D30 are reported)
MODEL_FIELDS = ("last_touch", "first_touch", "linear", "time_decay")
ZERO = Decimal(0)
CREDIT_QUANTUM = Decimal("1e-10")

_read_refresh = threading.Lock()


@dataclass(frozen=True)
class RefreshOutcome:
    days_queued: int
    days_rebuilt: int
    days_pending: int


# --- Discover and drain -----------------------------------------------------------------------

def refresh(*, now: datetime, budget_seconds: float | None = None) -> RefreshOutcome:
    queued = discover(now=now)
    rebuilt = drain(budget_seconds=budget_seconds)
    return RefreshOutcome(days_queued=queued, days_rebuilt=rebuilt,
                          days_pending=RollupDirtyDay.objects.count())


def refresh_if_stale(*, now: datetime) -> None:
    """Refresh from the request when no beat runs (the embedded default: `make run`)."""
    refreshed_at = RollupState.objects.filter(id=1).values_list("refreshed_at", flat=True).first()
    interval = timedelta(seconds=settings.ANALYTICS_ROLLUP_INTERVAL_SECONDS)
    if refreshed_at is not None and now - refreshed_at < interval:
        return
    if not _read_refresh.acquire(blocking=False):
        return  # another request of this process is refreshing; read what is there
    try:
        refresh(now=now, budget_seconds=settings.ANALYTICS_ROLLUP_BUDGET_SECONDS)
    finally:
        _read_refresh.release()


def discover(*, now: datetime) -> int:
    """Queue the days touched since the last scan; returns how many (app, kind, day) found."""
    cutoff = now - timedelta(seconds=settings.ANALYTICS_ROLLUP_SAFETY_SECONDS)
    _ensure_state()
    with transaction.atomic():
        state = RollupState.objects.select_for_update(skip_locked=True).filter(id=1).first()
        if state is None:
            return 0  # another worker is scanning right now
        if state.cutoff is not None and cutoff <= state.cutoff:
            return 0
        found = {
            RollupKind.INSTALLS: reporting.install_days_recorded(
                after=state.installs_through, through=cutoff),
            RollupKind.CLICKS: reporting.click_days_recorded(
                after=state.clicks_through, through=cutoff),
        }
        ceiling = reporting.event_id_ceiling(after_id=state.events_through_id,
                                             received_through=cutoff)
        found[RollupKind.EVENTS] = (
            reporting.event_days_recorded(after_id=state.events_through_id, through_id=ceiling)
            if ceiling > state.events_through_id else {})
        queued = 0
        for kind, days_by_app in found.items():
            for app_id, days in days_by_app.items():
                queued += _queue(app_id=app_id, kind=kind, days=days, stale_since=state.cutoff)
        state.installs_through = state.clicks_through = cutoff
        state.events_through_id = max(ceiling, state.events_through_id)
        state.cutoff = cutoff
        state.refreshed_at = now
        state.save()
    return queued


def _ensure_state() -> None:
    try:
        RollupState.objects.get_or_create(id=1)
    except IntegrityError:  # created by a concurrent first scan
        pass


def queue_app(*, app_id: uuid.UUID, start: date | None = None, end: date | None = None) -> int:
    """Queue every day of an app (or of start..end) for a rebuild of all its rollups."""
    span = reporting.app_activity_span(app_id=app_id)
    if span is None and (start is None or end is None):
        return 0
    first = start or span[0]
    last = end or span[1]
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    return sum(_queue(app_id=app_id, kind=kind, days=days, stale_since=None)
               for kind in RollupKind)


def _queue(*, app_id: uuid.UUID, kind: int, days: Iterable[date],
           stale_since: datetime | None) -> int:
    rows = [RollupDirtyDay(app_id=app_id, kind=kind, day=day, stale_since=stale_since,
                           marked_at=timezone.now()) for day in days]
    # DO UPDATE, not DO NOTHING: on PostgreSQL the upsert then waits for a drain that holds the
    # row, and re-inserts it once that drain has deleted it, so a change seen here is never
    # lost to a rebuild that read the day just before the change committed.
    RollupDirtyDay.objects.bulk_create(rows, batch_size=1_000, update_conflicts=True,
                                       unique_fields=["app", "kind", "day"],
                                       update_fields=["marked_at"])
    return len(rows)


def drain(*, budget_seconds: float | None = None) -> int:
    """Rebuild queued days until none is left or the time budget is spent; returns the count."""
    started = monotonic_clock.monotonic()
    rebuilt = 0
    failed: list[int] = []
    while budget_seconds is None or monotonic_clock.monotonic() - started < budget_seconds:
        dirty = None
        try:
            with transaction.atomic():
                dirty = (RollupDirtyDay.objects.select_for_update(skip_locked=True)
                         .exclude(id__in=failed).order_by("kind", "day", "id").first())
                if dirty is None:
                    break
                REBUILDERS[dirty.kind](app_id=dirty.app_id, day=dirty.day)
                dirty.delete()
            rebuilt += 1
        except Exception:  # noqa: BLE001 - one bad day must not stop every other day's rollups
            if dirty is None:
                raise  # the queue itself is unreadable: nothing to skip
            logger.exception("rollup rebuild failed for %s; left queued", dirty)
            failed.append(dirty.id)
    return rebuilt


def rebuild_app(*, app_id: uuid.UUID, start: date | None = None, end: date | None = None,
                progress=None) -> int:
    """Scan for news first (so the app's fresh events are not queued twice), then queue and
    rebuild every day of the app. `progress(done, total)` is called after each day."""
    discover(now=timezone.now())
    queue_app(app_id=app_id, start=start, end=end)
    total = RollupDirtyDay.objects.count()
    done = 0
    while drain(budget_seconds=1.0):
        done = total - RollupDirtyDay.objects.count()
        if progress is not None:
            progress(done, total)
    return done


def data_through(*, app_id: uuid.UUID) -> datetime | None:
    """Up to when the app's rollups reflect tracking's data; None while days are (re)built."""
    cutoff = RollupState.objects.filter(id=1).values_list("cutoff", flat=True).first()
    pending = RollupDirtyDay.objects.filter(app_id=app_id)
    if not pending.exists():
        return cutoff
    if pending.filter(stale_since__isnull=True).exists():
        return None
    return pending.aggregate(oldest=Min("stale_since"))["oldest"]


# --- Rebuilding one day -----------------------------------------------------------------------

def rebuild_install_day(*, app_id: uuid.UUID, day: date) -> None:
    installs = reporting.installs_on_day(app_id=app_id, day=day)
    counts: Counter = Counter()
    for install in installs:
        if install.is_organic:
            counts[(SourceType.ORGANIC, "", "")] += 1
        else:
            counts[(SourceType.PAID, install.media_source or "",
                    install.campaign_id or "")] += 1

    paid = [install for install in installs if not install.is_organic]
    touches = _touchpoints(app_id=app_id, day=day, installs=paid)
    half_life = timedelta(hours=settings.ANALYTICS_TIME_DECAY_HALF_LIFE_HOURS)
    touchpoints: list[InstallTouchpoint] = []
    credit: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [ZERO] * 4)
    for install in paid:
        verdict = (install.media_source or "", install.campaign_id or "")
        shares = touch_credit.install_credit(touches=touches[install.id], verdict=verdict,
                                             installed_at=install.installed_at,
                                             half_life=half_life)
        for (media_source, campaign_id), share in shares.items():
            weights = [getattr(share, name) for name in MODEL_FIELDS]
            touchpoints.append(InstallTouchpoint(
                app_id=app_id, install_id=install.id, install_day=day,
                media_source=media_source, campaign_id=campaign_id, touches=share.touches,
                **dict(zip(MODEL_FIELDS, weights, strict=True))))
            sums = credit[(media_source, campaign_id)]
            for index, weight in enumerate(weights):
                sums[index] += weight

    _replace(DailyInstallStat, app_id=app_id, day=day, rows=[
        DailyInstallStat(app_id=app_id, day=day, source_type=source_type,
                         media_source=media_source, campaign_id=campaign_id, installs=n)
        for (source_type, media_source, campaign_id), n in counts.items()])
    _replace(InstallTouchpoint, app_id=app_id, day=day, rows=touchpoints, day_field="install_day")
    _replace(DailyCreditStat, app_id=app_id, day=day, rows=[
        DailyCreditStat(app_id=app_id, day=day, media_source=media_source,
                        campaign_id=campaign_id, **dict(zip(MODEL_FIELDS, sums, strict=True)))
        for (media_source, campaign_id), sums in credit.items()])


def _touchpoints(*, app_id: uuid.UUID, day: date,
                 installs: list[reporting.InstallRow]) -> dict[uuid.UUID, list]:
    """Each install's clicks matched on its device within the window before it, plus the
    click the waterfall chose (or, if that click is not archived, the verdict itself)."""
    by_device: dict[str, list[reporting.ClickRow]] = defaultdict(list)
    if any(install.device_id for install in installs):
        for click in reporting.device_clicks_for_installs_on_day(
                app_id=app_id, day=day, window=TOUCHPOINT_WINDOW):
            by_device[click.advertising_id].append(click)
    own: dict[uuid.UUID, list[reporting.ClickRow]] = {}
    missing: set[uuid.UUID] = set()
    for install in installs:
        earliest = install.installed_at - TOUCHPOINT_WINDOW
        own[install.id] = [click for click in by_device.get(install.device_id or "", ())
                           if earliest <= click.clicked_at <= install.installed_at]
        if install.click_id and all(c.id != install.click_id for c in own[install.id]):
            missing.add(install.click_id)
    archived = {click.id: click for click in reporting.clicks_by_id(app_id=app_id,
                                                                     click_ids=missing)}
    touches: dict[uuid.UUID, list[touch_credit.Touch]] = {}
    for install in installs:
        clicks = own[install.id]
        if install.click_id in archived:
            clicks.append(archived[install.click_id])
        found = [touch_credit.Touch(key=(c.media_source, c.campaign_id), at=c.clicked_at,
                                    click_id=str(c.id)) for c in clicks]
        if install.click_id is None or all(c.id != install.click_id for c in clicks):
            found.append(touch_credit.Touch(
                key=(install.media_source or "", install.campaign_id or ""),
                at=install.attributed_touch_time or install.installed_at, click_id=""))
        touches[install.id] = found
    return touches


def rebuild_click_day(*, app_id: uuid.UUID, day: date) -> None:
    _replace(DailyClickStat, app_id=app_id, day=day, rows=[
        DailyClickStat(app_id=app_id, day=day, media_source=media_source,
                       campaign_id=campaign_id, clicks=clicks)
        for media_source, campaign_id, clicks in reporting.click_counts_on_day(
            app_id=app_id, day=day)])


def rebuild_event_day(*, app_id: uuid.UUID, day: date) -> None:
    rows = reporting.revenue_by_install_on_day(app_id=app_id, day=day)
    revenue: dict[tuple, list] = defaultdict(lambda: [ZERO, ZERO, 0])
    cohort: dict[tuple, Decimal] = defaultdict(Decimal)
    credited: dict[tuple, list[Decimal]] = defaultdict(lambda: [ZERO] * 4)
    weights = _weights(app_id=app_id, install_ids=[
        r.install_id for r in rows if r.install_id is not None and not r.is_organic])
    for row in rows:
        if row.install_id is None:
            key = (SourceType.NO_INSTALL, "", "")
        elif row.is_organic:
            key = (SourceType.ORGANIC, "", "")
        else:
            key = (SourceType.PAID, row.media_source or "", row.campaign_id or "")
        sums = revenue[(*key, row.currency)]
        sums[0] += row.revenue
        sums[1] += row.refunds
        sums[2] += row.events
        if row.install_id is not None:
            cohort[(row.installed_at.date(), key[0], key[1], row.currency)] += row.revenue
        if key[0] == SourceType.PAID:
            # An install whose day is not rolled up yet has no weights: all credit to its
            # own source and campaign, as last-touch would give it.
            for media_source, campaign_id, shares in weights.get(
                    row.install_id, [(key[1], key[2], (Decimal(1),) * 4)]):
                sums = credited[(media_source, campaign_id, row.currency)]
                for index, share in enumerate(shares):
                    sums[index] += row.revenue * share

    _replace(DailyRevenueStat, app_id=app_id, day=day, rows=[
        DailyRevenueStat(app_id=app_id, day=day, source_type=source_type,
                         media_source=media_source, campaign_id=campaign_id, currency=currency,
                         revenue=amount, refunds=refunds, revenue_events=events)
        for (source_type, media_source, campaign_id, currency), (amount, refunds, events)
        in revenue.items()])
    _replace(CohortRevenueStat, app_id=app_id, day=day, rows=[
        CohortRevenueStat(app_id=app_id, install_day=install_day, day=day,
                          source_type=source_type, media_source=media_source,
                          currency=currency, revenue=amount)
        for (install_day, source_type, media_source, currency), amount in cohort.items()])
    _replace(DailyCreditedRevenueStat, app_id=app_id, day=day, rows=[
        DailyCreditedRevenueStat(
            app_id=app_id, day=day, media_source=media_source, campaign_id=campaign_id,
            currency=currency, **{name: amount.quantize(CREDIT_QUANTUM)
                                  for name, amount in zip(MODEL_FIELDS, sums, strict=True)})
        for (media_source, campaign_id, currency), sums in credited.items()])
    _replace(DailyRetentionStat, app_id=app_id, day=day, rows=[
        DailyRetentionStat(app_id=app_id, cohort_day=cohort_day, age=(day - cohort_day).days,
                           active_installs=active, day=day)
        for cohort_day, active in reporting.active_installs_by_cohort_day(
            app_id=app_id, day=day, max_age_days=RETENTION_MAX_AGE)])


def _weights(*, app_id: uuid.UUID, install_ids: list[uuid.UUID]) -> dict[uuid.UUID, list]:
    found: dict[uuid.UUID, list] = defaultdict(list)
    for offset in range(0, len(install_ids), 1_000):
        for install_id, media_source, campaign_id, *shares in (
                InstallTouchpoint.objects.filter(
                    app_id=app_id, install_id__in=install_ids[offset:offset + 1_000])
                .values_list("install_id", "media_source", "campaign_id", *MODEL_FIELDS)):
            found[install_id].append((media_source, campaign_id, tuple(shares)))
    return found


def _replace(model, *, app_id: uuid.UUID, day: date, rows: list, day_field: str = "day") -> None:
    model.objects.filter(app_id=app_id, **{day_field: day}).delete()
    model.objects.bulk_create(rows, batch_size=2_000)


REBUILDERS = {
    RollupKind.INSTALLS: rebuild_install_day,
    RollupKind.CLICKS: rebuild_click_day,
    RollupKind.EVENTS: rebuild_event_day,
}
