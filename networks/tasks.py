"""Celery tasks of Google Ads claims (docs/networks.md, "Google Ads"). Thin: each takes an id or
nothing and calls one service. They go to the default queue (`celery`), which a plain
`celery -A attribution_site worker` consumes, so a slow Google never holds up postbacks. No
autoretry: google_ads.policy classifies every outcome. The sweep is the outbox's one
(outbox/tasks.py).
"""

from __future__ import annotations

from celery import shared_task

from networks.google import services
from outbox.tasks import TASK_OPTIONS


@shared_task(name="google_ads.claim", **TASK_OPTIONS)
def google_ads_claim(claim_id: str) -> None:
    services.claim_send(claim_id=claim_id)
