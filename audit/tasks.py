"""The audit log's beat job (attribution_site/settings.py, CELERY_BEAT_SCHEDULE)."""

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from audit.services import entries_prune


@shared_task(name="audit.prune", ignore_result=True)
def prune() -> None:
    """Delete audit entries older than AUDIT_RETENTION_DAYS."""
    entries_prune(now=timezone.now(), retention_days=settings.AUDIT_RETENTION_DAYS)
