"""Celery tasks of Apple Ads claims (docs/apple.md, "Apple Ads: a correction after the
waterfall"). Thin: each takes an id or nothing and calls one service. They go to the default
queue (`celery`), which a plain `celery -A attribution_site worker` consumes; a `-Q delivery`
pool never sees them, so a slow Apple never holds up postbacks. No autoretry: apple_ads.policy
classifies every outcome.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from apple_ads import services

TASK_OPTIONS = {"acks_late": True, "ignore_result": True}


@shared_task(name="apple_ads.exchange", **TASK_OPTIONS)
def apple_ads_exchange(claim_id: str) -> None:
    services.claim_exchange(claim_id=claim_id)


@shared_task(name="apple_ads.sweep", **TASK_OPTIONS)
def apple_ads_sweep() -> None:
    services.claims_sweep(now=timezone.now(), grace_seconds=services.sweep_grace_seconds())
