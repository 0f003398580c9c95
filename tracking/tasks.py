"""Scheduled tracking work."""

from celery import shared_task
from django.utils import timezone

from tracking.services import clicks_prune


@shared_task(name="tracking.prune_clicks", ignore_result=True)
def prune_clicks() -> int:
    return clicks_prune(now=timezone.now())
