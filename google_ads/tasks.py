"""Celery tasks of Google Ads claims (docs/networks.md, "Google Ads"). Thin: each takes an id or
nothing and calls one service. They go to the default queue (`celery`), which a plain
`celery -A attribution_site worker` consumes, so a slow Google never holds up postbacks. No
autoretry: google_ads.policy classifies every outcome.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from google_ads import services

TASK_OPTIONS = {"acks_late": True, "ignore_result": True}


@shared_task(name="google_ads.claim", **TASK_OPTIONS)
def google_ads_claim(claim_id: str) -> None:
    services.claim_send(claim_id=claim_id)


@shared_task(name="google_ads.sweep", **TASK_OPTIONS)
def google_ads_sweep() -> None:
    services.claims_sweep(now=timezone.now(), grace_seconds=services.sweep_grace_seconds())
