"""Retention's beat job (attribution_site/settings.py, CELERY_BEAT_SCHEDULE), on the default
queue: the work is a few long batches of UPDATEs and DELETEs, not the delivery queue's kind."""

from celery import shared_task
from django.utils import timezone

from retention.services import BUDGET_SECONDS, LEASE_MARGIN, retention_enforce


# Longer than the project's default limits: a run stops itself after its budget.
@shared_task(name="retention.enforce", ignore_result=True,
             soft_time_limit=BUDGET_SECONDS + LEASE_MARGIN.total_seconds() / 2,
             time_limit=BUDGET_SECONDS + LEASE_MARGIN.total_seconds())
def enforce() -> None:
    """Mask and delete what crossed each app's limits since the last run."""
    retention_enforce(now=timezone.now())
