"""Celery tasks of Apple Ads claims (docs/apple.md, "Apple Ads: a correction after the
waterfall"). Thin: each takes an id or nothing and calls one service. They go to the default
queue (`celery`), which a plain `celery -A attribution_site worker` consumes; a `-Q delivery`
pool never sees them, so a slow Apple never holds up postbacks. No autoretry: apple_ads.policy
classifies every outcome. The sweep is the outbox's one (outbox/tasks.py).
"""

from __future__ import annotations

from celery import shared_task

from apple_ads import services
from outbox.tasks import TASK_OPTIONS


@shared_task(name="apple_ads.exchange", **TASK_OPTIONS)
def apple_ads_exchange(claim_id: str) -> None:
    services.claim_exchange(claim_id=claim_id)
