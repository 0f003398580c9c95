"""Scheduled tracking work."""

from celery import shared_task
from django.utils import timezone

from tracking.partition_sql import partitions_ensure as ensure
from tracking.services import clicks_prune


@shared_task(name="tracking.prune_clicks", ignore_result=True)
def prune_clicks() -> int:
    """Remove hot-store clicks older than the attribution window; the archive keeps them."""
    return clicks_prune(now=timezone.now())


@shared_task(name="tracking.partitions_ensure", ignore_result=True)
def partitions_ensure() -> list[str]:
    """Make the partitions holding today and the days ahead (PostgreSQL; nothing on SQLite)."""
    return ensure(now=timezone.now())
