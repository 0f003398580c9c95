"""Rollup repairs for facts that change after they were counted (docs/apple.md, "Apple Ads: a
correction after the waterfall": an install moved to Apple Ads by apple_ads after the waterfall
attributed it).

The arrivals pass adds each install once, when it commits, under the attribution it had then;
an UPDATE is no arrival (tracking/changes.py follows inserts). So a re-attribution queues the
days whose figures read the install's attribution for a rebuild, inside the transaction that
moves the install: its install day (installs, touchpoints) and each day since (revenue events
are counted under their install's source). The mark updates `marked_at`, and the refresh drops
a day from the queue only when the mark is the one it rebuilt, so a change committed while the
day was being rebuilt is rebuilt again, never lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, timedelta
from typing import Any

from django.utils import timezone

from analytics.models import RollupDirtyDay, RollupKind
from attribution_site.write_batch import WriteBatch


def days_for_reattributions(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallReattributed: queue the install's day and the days since for a rebuild.
    Published inside the re-attribution's transaction (tracking's install_reattribute), so
    these rows, written at once rather than through the batch (an upsert), commit with it."""
    now = timezone.now()
    # One row per (app, kind, day): a publication of many installs (beat's post-attribution)
    # shares days, and one upsert statement may not touch a row twice.
    keys = set()
    for event in events:
        first = event.installed_at.astimezone(UTC).date()  # rollup days are UTC days
        last = max(first, event.reattributed_at.astimezone(UTC).date())
        keys.add((event.app_id, RollupKind.INSTALLS, first))
        keys.update((event.app_id, RollupKind.EVENTS, first + timedelta(days=n))
                    for n in range((last - first).days + 1))
    rows = [RollupDirtyDay(app_id=app_id, kind=kind, day=day, stale_since=now, marked_at=now)
            for app_id, kind, day in sorted(keys)]
    # A day queued already keeps its (older) stale_since; its new marked_at tells a rebuild
    # running now that it must not drop the day.
    RollupDirtyDay.objects.bulk_create(rows, update_conflicts=True,
                                       unique_fields=["app", "kind", "day"],
                                       update_fields=["marked_at"])
