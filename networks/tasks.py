"""Celery tasks of the networks (docs/networks.md, "Google Ads", "Ad spend"). Thin: each takes
an id and calls one service. They go to the default queue (`celery`), which a plain
`celery -A attribution_site worker` consumes, so a slow Google never holds up postbacks. No
autoretry: each kind's pure policy (networks/google/policy.py, networks/spend/policy.py)
classifies every outcome. The sweep is the outbox's one (outbox/tasks.py).

A task keeps the name it had before networks/ existed (`google_ads.claim`): messages already
queued under it, and workers of the previous release during a rolling upgrade, still meet.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from networks.google import claims
from networks.spend import services as spend
from outbox.tasks import TASK_OPTIONS


@shared_task(name="google_ads.claim", **TASK_OPTIONS)
def google_ads_claim(claim_id: str) -> None:
    claims.claim_send(claim_id=claim_id)


@shared_task(name="networks.cost_pull", **TASK_OPTIONS)
def cost_pull(pull_id: str) -> None:
    spend.pull_send(pull_id=pull_id)


@shared_task(name="networks.cost_pulls_schedule", **TASK_OPTIONS)
def cost_pulls_schedule() -> None:
    """Start a pull of every enabled cost connection without an open one."""
    spend.pulls_schedule(now=timezone.now())
