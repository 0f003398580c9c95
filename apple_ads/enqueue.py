"""Apple Ads claims as a kind of outbox work (docs/outbox.md; docs/apple.md): what the outbox
needs to claim, record, retry and sweep them, and the first exchange sent after the install
commits. Messages go by task name (`apple_ads.exchange`), so nothing here imports the tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from apple_ads import policy
from apple_ads.models import Attempt, Claim
from apple_ads.policy import State
from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register

INTERRUPTED_GIVEN_UP = "Given up: the worker stopped mid-exchange once too often."


def _exhausted(claim: Claim, now: datetime) -> dict | None:
    if policy.exhausted(attempts_made=claim.attempts_made,
                        token_age_seconds=(now - claim.received_at).total_seconds()):
        # The token is a credential for a day: nothing needs it any more.
        return {"state": State.FAILED, "token": "", "last_error": INTERRUPTED_GIVEN_UP}
    return None


CLAIMS = kind_register(Kind(
    name="Apple Ads claim", work_model=Claim, attempt_model=Attempt, attempt_of="claim",
    send_task="apple_ads.exchange", timeout_setting="APPLE_ADS_TIMEOUT_SECONDS",
    grace_setting="APPLE_ADS_SWEEP_GRACE_SECONDS", exhausted=_exhausted,
))


def claims_enqueue(claim_ids: Sequence[str]) -> None:
    """One message per claim. Never raises: the sweep sends a claim whose message was lost."""
    work_enqueue(CLAIMS, claim_ids)
