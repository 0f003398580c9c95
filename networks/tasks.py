"""Celery tasks of the networks (docs/networks.md, "Google Ads"). Thin: each takes an id and
calls one service. They go to the default queue (`celery`), which a plain
`celery -A attribution_site worker` consumes, so a slow Google never holds up postbacks. No
autoretry: networks/google/policy.py classifies every outcome. The sweep is the outbox's one
(outbox/tasks.py).

A task keeps the name it had before networks/ existed (`google_ads.claim`): messages already
queued under it, and workers of the previous release during a rolling upgrade, still meet.
"""

from __future__ import annotations

from celery import shared_task

from networks.google import claims
from outbox.tasks import TASK_OPTIONS


@shared_task(name="google_ads.claim", **TASK_OPTIONS)
def google_ads_claim(claim_id: str) -> None:
    claims.claim_send(claim_id=claim_id)
