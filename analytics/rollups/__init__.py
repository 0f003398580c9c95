"""Keeping the daily rollups current (design in docs/analytics.md, "Daily rollups").

`refresh` is what beat runs every ANALYTICS_ROLLUP_INTERVAL_SECONDS (2 s by default), and what
an analytics request runs first where no beat runs (`make run`). Each round, under a lock on
the single RollupState row (a second refresher skips rather than waits):
1. a pass adds what committed in tracking since the stored watermark (arrivals.py), so a new
   install, click or event is in every report within seconds;
2. then, while time is left, one queued day is rebuilt whole (rebuild.py): repairs, the first
   start, and backlogs too large for a pass.
The watermark is the database's own record of what committed (tracking/changes.py), not a
clock: a row stamped days in the past, or by a server whose clock lags, is found all the same.
`data_through` tells how far every figure of an app is complete.
"""

from __future__ import annotations

import logging
import threading
import time as monotonic_clock
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Min

from analytics.models import RollupDirtyDay, RollupState
from analytics.rollups import arrivals, rebuild
from analytics.rollups.figures import MODEL_FIELDS, TOUCHPOINT_WINDOW
from analytics.rollups.rebuild import REBUILDERS, queue_app
from apps_registry.selectors import existing_app_ids
from tracking import changes
from tracking.changes import Watermark
from tracking.reporting import rollup_rows

__all__ = ["MODEL_FIELDS", "REBUILDERS", "TOUCHPOINT_WINDOW", "RefreshOutcome", "data_through",
           "queue_app", "rebuild_app", "refresh", "refresh_on_read"]

logger = logging.getLogger(__name__)

_read_refresh = threading.Lock()


@dataclass(frozen=True)
class RefreshOutcome:
    rows_added: int
    days_queued: int
    days_rebuilt: int
    days_pending: int
    skipped: bool = False  # another process held the lock


def refresh(*, budget_seconds: float | None = None) -> RefreshOutcome:
    """Add the arrivals, then rebuild queued days until none is left or the budget is spent
    (None: no budget). Each round is one transaction; a day whose rebuild fails is logged and
    left queued without holding up the others."""
    started = monotonic_clock.monotonic()
    added = queued = rebuilt = 0
    failed: list[int] = []
    while True:
        with transaction.atomic():
            state = _claim_state()
            if state is None:
                return RefreshOutcome(added, queued, rebuilt, _pending(), skipped=True)
            round_added, round_queued = _advance(state)
            added += round_added
            queued += round_queued
            dirty = None
            # At least one day per call, however long the pass took: a caller looping until
            # the queue is empty must see it shrink.
            if (budget_seconds is None or rebuilt == 0
                    or monotonic_clock.monotonic() - started < budget_seconds):
                dirty = rebuild.next_day(skip=failed)
            if dirty is not None:
                try:
                    with transaction.atomic():
                        REBUILDERS[dirty.kind](app_id=dirty.app_id, day=dirty.day,
                                               seen=Watermark.from_json(state.watermark))
                        # Only the mark it rebuilt: a day marked again meanwhile (a
                        # re-attribution, rollups/corrections.py) is rebuilt once more.
                        RollupDirtyDay.objects.filter(id=dirty.id,
                                                      marked_at=dirty.marked_at).delete()
                    rebuilt += 1
                except Exception:  # noqa: BLE001 - one bad day must not stop the others
                    logger.exception("rollup rebuild failed for %s; left queued", dirty)
                    failed.append(dirty.id)
        if dirty is None:
            return RefreshOutcome(added, queued, rebuilt, _pending())


def refresh_on_read() -> None:
    """Refresh from an analytics request, where no beat runs (the embedded default). A failed
    refresh is logged and the request reads what is stored: `data_through` says how far that
    goes, and the next request tries again."""
    if not _read_refresh.acquire(blocking=False):
        return  # another request of this process is refreshing; read what is there
    try:
        refresh(budget_seconds=settings.ANALYTICS_ROLLUP_BUDGET_SECONDS)
    except Exception:  # noqa: BLE001 - a report of what is stored beats no report
        logger.exception("analytics refresh before a read failed; reading the stored rollups")
    finally:
        _read_refresh.release()


def rebuild_app(*, app_id: uuid.UUID, start=None, end=None, progress=None) -> int:
    """Queue and rebuild every day of the app (or of start..end) now, with no time budget.
    `progress(done, total)` is called after each day."""
    queue_app(app_id=app_id, start=start, end=end)
    total = _pending()
    done = 0
    while True:
        outcome = refresh(budget_seconds=1.0)
        if outcome.skipped:  # beat's refresh holds the lock; it rebuilds queued days too
            monotonic_clock.sleep(0.2)
        done += outcome.days_rebuilt
        if progress is not None:
            progress(min(done, total), total)
        if outcome.days_pending == 0 or (outcome.days_rebuilt == 0 and not outcome.skipped):
            return done


def data_through(*, app_id: uuid.UUID) -> datetime | None:
    """Up to when every figure of the app is complete; None while its days are rebuilt with
    nothing known about what they miss (a repair, or the very first start)."""
    through = RollupState.objects.filter(id=1).values_list("data_through", flat=True).first()
    pending = RollupDirtyDay.objects.filter(app_id=app_id)
    if not pending.exists():
        return through
    if pending.filter(stale_since__isnull=True).exists():
        return None
    return pending.aggregate(oldest=Min("stale_since"))["oldest"]


def _advance(state: RollupState) -> tuple[int, int]:
    """Move the watermark to now: add the arrivals, or queue their days. Returns (rows added,
    days queued)."""
    through = changes.watermark_now()
    if state.watermark is None:
        queued = _start(state, through)
        added = 0
    else:
        after = Watermark.from_json(state.watermark)
        applied = arrivals.apply(after=after, through=through)
        added = applied.rows_added
        queued = sum(rebuild.queue(app_id=app_id, kind=kind, days=days,
                                   stale_since=after.taken_at)
                     for (app_id, kind), days in applied.to_rebuild.items())
    state.watermark = through.to_json()
    state.data_through = through.taken_at
    state.save(update_fields=["watermark", "data_through"])
    return added, queued


def _start(state: RollupState, through: Watermark) -> int:
    """The first pass: nothing has a watermark yet, so every app's days are rebuilt, from the
    last time-based scan's day if an earlier version of these rollups had one."""
    since = state.data_through
    queued = 0
    for app_id in existing_app_ids():
        span = rollup_rows.app_activity_span(app_id=app_id)
        if span is None:
            continue
        if since is None:
            queued += queue_app(app_id=app_id)
        elif span[1] >= since.date():
            queued += queue_app(app_id=app_id, start=max(span[0], since.date()), end=span[1],
                                stale_since=since)
    return queued


def _claim_state() -> RollupState | None:
    try:
        RollupState.objects.get_or_create(id=1)
    except IntegrityError:  # created by a concurrent first refresh
        pass
    if connection.vendor == "postgresql":
        return RollupState.objects.select_for_update(skip_locked=True).filter(id=1).first()
    # SQLite has no row locks: a write takes the database's write lock for the transaction,
    # so a second refresher waits here and then reads the watermark the first one stored.
    RollupState.objects.filter(id=1).update(data_through=F("data_through"))
    return RollupState.objects.get(id=1)


def _pending() -> int:
    return RollupDirtyDay.objects.count()
