"""The beat task that keeps the daily rollups current (see analytics.rollups)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from analytics import rollups


@shared_task(name="analytics.rollups_refresh", ignore_result=True)
def rollups_refresh() -> None:
    # A run that overlaps the next one is harmless: the second finds the lock taken and
    # returns; the budget keeps a backlog of rebuilds from hitting the task time limit.
    rollups.refresh(budget_seconds=settings.ANALYTICS_ROLLUP_BUDGET_SECONDS)
