"""Retention counts the installs the other reports count (analytics/counting.py; docs/metrics.md,
"What counts"): the event days whose retention rollups counted the activity of blocked or
post-attribution installs are queued for a rebuild, which leaves those installs out. They are
the 30 days after each such install's day (the oldest age retention keeps); the refresh
rebuilds them, and until then `data_through` says the app's figures are being rebuilt."""

from datetime import timedelta

from django.db import migrations
from django.db.models.functions import TruncDate
from django.utils import timezone

# The values as this migration was written: a migration must not follow later code.
EVENTS = 2  # analytics.models.RollupKind.EVENTS
NOT_COUNTED = ("blocked", "post_attribution")  # analytics.counting.NOT_COUNTED
RETENTION_MAX_AGE = 30  # analytics.rollups.figures.RETENTION_MAX_AGE


def queue_retention_days(apps, schema_editor):
    Install = apps.get_model("tracking", "Install")
    RollupDirtyDay = apps.get_model("analytics", "RollupDirtyDay")
    now = timezone.now()
    days = set()
    for app_id, install_day in (Install.objects.filter(fraud_status__in=NOT_COUNTED)
                                .annotate(install_day=TruncDate("installed_at"))
                                .values_list("app_id", "install_day").distinct().order_by()):
        days.update((app_id, install_day + timedelta(days=age))
                    for age in range(1, RETENTION_MAX_AGE + 1)
                    if install_day + timedelta(days=age) <= now.date())
    RollupDirtyDay.objects.bulk_create(
        [RollupDirtyDay(app_id=app_id, kind=EVENTS, day=day, stale_since=None, marked_at=now)
         for app_id, day in sorted(days)],
        batch_size=1_000, update_conflicts=True, unique_fields=["app", "kind", "day"],
        update_fields=["stale_since", "marked_at"])


class Migration(migrations.Migration):

    dependencies = [
        ("analytics", "0005_source_types_blocked_post_attribution"),
        ("tracking", "0015_hot_store_week_partitions"),
    ]

    operations = [
        migrations.RunPython(queue_retention_days, migrations.RunPython.noop),
    ]
