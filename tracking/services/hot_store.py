"""Click retention in the hot store (the table the waterfall reads; the archive keeps every
click): how long a click stays past the attribution window, and the pruning beat runs
(tracking/tasks.py, `manage.py prune_clicks`), by dropping whole week partitions on PostgreSQL
and by batches of deletes elsewhere.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tracking import attribution, partition_sql
from tracking.models import Click

# Clicks stay in the hot store this long past the window, so the analytics pass can read a
# new install's whole window there (reporting.recent_device_clicks) even just after a prune.
HOT_STORE_SLACK = timedelta(hours=1)


def clicks_prune(*, now: datetime, retention_days: int = attribution.WINDOW.days,
                 batch_size: int = 10_000, progress=None) -> int:
    """Remove hot-store clicks older than the window and HOT_STORE_SLACK; the archive stays.
    How many went; `progress(so_far)` after each step. Running it twice is harmless.

    On PostgreSQL each partition (a week) wholly older than the cutoff is detached and
    dropped (constant time whatever it holds); one straddling the cutoff waits for a later run,
    and the default partition's expired rows are deleted in batches. Elsewhere, batches of
    deletes: each stays short (no long lock, bounded WAL)."""
    cutoff = now - timedelta(days=retention_days) - HOT_STORE_SLACK
    deleted = 0

    def advance(count: int) -> None:
        nonlocal deleted
        deleted += count
        if progress is not None:
            progress(deleted)

    if partition_sql.in_use():
        partition_sql.hot_partitions_drop(cutoff=cutoff, progress=advance)
        while count := partition_sql.hot_default_delete(cutoff=cutoff, batch_size=batch_size):
            advance(count)
        return deleted
    while True:
        ids = list(Click.objects.filter(clicked_at__lt=cutoff)
                   .values_list("id", flat=True)[:batch_size])
        if not ids:
            return deleted
        Click.objects.filter(id__in=ids).delete()
        advance(len(ids))
