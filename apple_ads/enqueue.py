"""Handing claims to the workers: the first exchange after the install commits, and a retry's
countdown message. Never raises: a claim is a committed row before it is a message, and the
sweep (apple_ads.services.claims_sweep, sent by beat) finds one whose message was lost.
Imports the tasks at call time: the tasks import the services, which import this module.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from attribution_site import redis_rest
from attribution_site.celery import app as celery_app

logger = logging.getLogger(__name__)


def runs_in_process() -> bool:
    """The embedded default (no broker): a task runs at once in the sending process."""
    return celery_app.conf.task_always_eager


def claims_enqueue(claim_ids: Sequence[str]) -> None:
    if not claim_ids:
        return
    if redis_rest.resting():  # a hung broker would hold the SDK request for seconds
        logger.warning("Redis at rest: %d Apple Ads claims left to the sweep", len(claim_ids))
        return
    from apple_ads import tasks

    for claim_id in claim_ids:
        try:
            tasks.apple_ads_exchange.apply_async(
                (claim_id,), retry=True, retry_policy={"max_retries": 1, "interval_start": 0.1})
        except Exception:  # noqa: BLE001 - any broker failure; the sweep is the fallback
            redis_rest.failed()
            logger.warning("could not enqueue Apple Ads claim %s; the sweep will", claim_id,
                           exc_info=True)
            return


def claim_retry_enqueue(claim_id: str, delay: float) -> None:
    if runs_in_process():
        return  # an eager task would ignore the countdown: the sweep sends it when due
    from apple_ads import tasks

    try:
        tasks.apple_ads_exchange.apply_async((claim_id,), countdown=delay)
    except Exception:  # noqa: BLE001 - the claim is pending in the database; the sweep sends it
        logger.warning("could not schedule the retry of Apple Ads claim %s; the sweep will",
                       claim_id, exc_info=True)
