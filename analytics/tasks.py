"""Beat tasks: the daily rollups kept current (analytics.rollups) and the click-flood check
(analytics.flood_checks)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from analytics import flood_checks, rollups


@shared_task(name="analytics.rollups_refresh", ignore_result=True)
def rollups_refresh() -> None:
    """Add to the daily rollups what committed since the last refresh, and rebuild queued days."""
    # A run that overlaps the next one is harmless: the second finds the lock taken and
    # returns; the budget keeps a backlog of rebuilds from hitting the task time limit.
    rollups.refresh(budget_seconds=settings.ANALYTICS_ROLLUP_BUDGET_SECONDS)


@shared_task(name="analytics.flood_check", ignore_result=True)
def flood_check() -> None:
    """Flag the sources flooding clicks, and take their credited installs out of the paid counts."""
    flood_checks.flood_check(now=timezone.now())
