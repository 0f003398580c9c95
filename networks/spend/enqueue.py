"""Cost pulls as a kind of outbox work (docs/outbox.md; docs/networks.md, "Ad spend"): what the
outbox needs to claim, record, retry and sweep them. Messages go by task name
(`networks.cost_pull`), so nothing here imports the tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from networks.models import CostPull, CostPullAttempt
from networks.spend import policy
from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register

INTERRUPTED_GIVEN_UP = "Given up: the worker stopped mid-pull once too often."


def _exhausted(pull: CostPull, now: datetime) -> dict | None:
    if not policy.exhausted(attempts_made=pull.attempts_made):
        return None
    return {"state": policy.State.FAILED, "last_error": INTERRUPTED_GIVEN_UP}


PULLS = kind_register(Kind(
    name="cost pull", work_model=CostPull, attempt_model=CostPullAttempt, attempt_of="pull",
    send_task="networks.cost_pull", timeout_setting="COST_PULL_TIMEOUT_SECONDS",
    grace_setting="COST_PULL_SWEEP_GRACE_SECONDS", exhausted=_exhausted,
))


def pulls_enqueue(pull_ids: Sequence[str]) -> None:
    """One message per pull. Never raises: the sweep sends a pull whose message was lost."""
    work_enqueue(PULLS, pull_ids)
