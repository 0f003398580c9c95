"""Enforcing every app's retention limits (docs/privacy.md, "Retention"): what beat runs hourly
(retention/tasks.py) and `manage.py retention_enforce` runs on demand.

One run, on the clock it is given: mask the IP addresses and drop the fingerprints past each
app's `ip_retention_days`, then drop the raw rows past each app's `raw_retention_days`. The
statements are tracking's (tracking/retention.py); the rules are retention/policy.py's; this
module keeps the progress between runs, so each run touches only what crossed a line since the
last, and a lease so that two runs never overlap. A run stopped by its time budget keeps what
it did and the next one carries on.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from django.db import IntegrityError
from django.db.models import Q
from django.utils import timezone

from apps_registry.selectors import app_retention_limits
from retention import policy
from retention.models import Enforcement, Progress
from tracking import retention as tracking_retention
from web import retention as web_retention

logger = logging.getLogger(__name__)

BATCH_SIZE = 5_000
# Beat runs hourly on the default queue, beside the rollups: a run stops starting batches after
# this, and the first run on a large database takes several, each keeping its progress.
BUDGET_SECONDS = 5 * 60
# A run holds the lease this much past its budget (a batch under way ends first); a run killed
# midway frees it when it expires. A run without a budget (the command) holds it for hours.
LEASE_MARGIN = timedelta(minutes=5)
LONGEST_LEASE = timedelta(hours=6)

MASKING = tracking_retention.Masking(
    ipv4_prefix=policy.IPV4_PREFIX, ipv4_mapped_prefix=policy.IPV4_MAPPED_PREFIX,
    ipv6_prefix=policy.IPV6_PREFIX, address=policy.masked_ip,
    network_key=policy.masked_network_key)


@dataclass
class Outcome:
    """What a run did: rows masked and deleted per table, partitions dropped, and whether it
    got through everything (False: its budget ran out; the next run continues)."""

    now: str
    masked: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)
    partitions_dropped: list[str] = field(default_factory=list)
    complete: bool = True


def retention_enforce(*, now: datetime, batch_size: int = BATCH_SIZE,
                      budget_seconds: float = BUDGET_SECONDS,
                      rescan: bool = False) -> Outcome | None:
    """Enforce every app's limits as of `now`; None when another run holds the lease.
    `rescan`: mask from the first row again, not from where the last run stopped (rows loaded
    with times already past a limit); masking a masked row changes nothing."""
    lease = timedelta(seconds=min(budget_seconds, LONGEST_LEASE.total_seconds()))
    if not _lease_take(lease + LEASE_MARGIN):
        logger.info("retention: another run is in progress; skipped")
        return None
    started = timezone.now()
    outcome = Outcome(now=now.isoformat())
    try:
        deadline = time.monotonic() + budget_seconds
        limits = {row.app_id: policy.Limits(row.ip_retention_days, row.raw_retention_days)
                  for row in app_retention_limits()}
        _mask(now=now, limits=limits, batch_size=batch_size, deadline=deadline,
              outcome=outcome, rescan=rescan)
        if outcome.complete:
            _delete_raw(now=now, limits=limits, batch_size=batch_size, deadline=deadline,
                        outcome=outcome)
    finally:
        Enforcement.objects.filter(id=1).update(lease_until=None)
    Enforcement.objects.filter(id=1).update(
        last_started_at=started, last_finished_at=timezone.now(), last_now=now,
        last_outcome=asdict(outcome))
    logger.info("retention: %s", asdict(outcome))
    return outcome


def _lease_take(lease: timedelta) -> bool:
    """Take the run's lease with a conditional UPDATE: a run killed midway leaves a lease that
    expires, never a lock held for ever."""
    wall = timezone.now()
    try:
        Enforcement.objects.get_or_create(id=1)
    except IntegrityError:  # made by a concurrent first run
        pass
    return bool(Enforcement.objects.filter(id=1).filter(
        Q(lease_until__isnull=True) | Q(lease_until__lt=wall)).update(lease_until=wall + lease))


def _mask(*, now, limits, batch_size, deadline, outcome: Outcome, rescan: bool) -> None:
    cutoffs = policy.cutoffs_by_app(now=now, limits=limits, raw=False)
    common = policy.common_cutoff(cutoffs.values())
    for target in tracking_retention.WITH_ADDRESSES:
        stored = Progress.objects.filter(table=target.name)
        if rescan:
            stored = stored.none()
        whole = stored.filter(app__isnull=True).first()
        done_before = whole.masked_through if whole else None
        whole_ranges = [
            period for period in policy.whole_periods(
                tracking_retention.partition_periods(target), cutoff=common)
            if done_before is None or period.start >= done_before]
        masked, last = tracking_retention.ip_mask_whole_partitions(
            target=target, masking=MASKING, periods=whole_ranges, batch_size=batch_size,
            deadline=deadline)
        if last is not None:
            done_before = last.end
            _progress_store(target.name, None, done_before)
        if whole_ranges and last != whole_ranges[-1]:  # the budget ran out midway
            outcome.complete = False
        done = {row.app_id: row.masked_through for row in stored.filter(app__isnull=False)}
        for app_id, cutoff in cutoffs.items():
            since = _later(done.get(app_id), done_before)
            if since is not None and since >= cutoff:  # done, or the limit was lengthened
                continue
            if not outcome.complete:  # the budget ran out: only what no app needs is skipped
                break
            app_pass = tracking_retention.ip_mask_app(
                target=target, masking=MASKING, app_id=app_id, since=since, until=cutoff,
                batch_size=batch_size, deadline=deadline)
            masked += app_pass.rows
            _progress_store(target.name, app_id, app_pass.reached)
            if app_pass.reached != cutoff or time.monotonic() > deadline:
                outcome.complete = False
        outcome.masked[target.name] = masked
        if not outcome.complete:
            return


def _delete_raw(*, now, limits, batch_size, deadline, outcome: Outcome) -> None:
    cutoffs = policy.cutoffs_by_app(now=now, limits=limits, raw=True)
    common = policy.common_cutoff(cutoffs.values())
    for target in (*tracking_retention.RAW, web_retention.VISITS):
        outcome.partitions_dropped += tracking_retention.raw_partitions_drop(
            target=target, periods=policy.whole_periods(
                tracking_retention.partition_periods(target), cutoff=common))
        deleted = 0
        for app_id, cutoff in cutoffs.items():
            deleted += tracking_retention.raw_delete_app(
                target=target, app_id=app_id, before=cutoff, batch_size=batch_size,
                deadline=deadline)
            if time.monotonic() > deadline:
                outcome.complete = False
                break
        outcome.deleted[target.name] = deleted


def _later(first: datetime | None, second: datetime | None) -> datetime | None:
    return max((moment for moment in (first, second) if moment is not None), default=None)


def _progress_store(table: str, app_id: uuid.UUID | None, reached: datetime) -> None:
    """Move the progress forward (never back: a lengthened limit does not unmask anything)."""
    row = Progress.objects.filter(table=table, app_id=app_id).first()
    if row is None:
        Progress.objects.create(table=table, app_id=app_id, masked_through=reached)
    elif reached > row.masked_through:
        Progress.objects.filter(id=row.id).update(masked_through=reached)
