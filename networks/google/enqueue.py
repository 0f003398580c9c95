"""Google Ads claims as a kind of outbox work (docs/outbox.md; docs/networks.md, "Google Ads"):
what the outbox needs to claim, record, retry and sweep them, and the first call sent after
the install commits. Messages go by task name (`google_ads.claim`), so nothing here imports the
tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from networks.google import policy
from networks.google.policy import State
from networks.models import GoogleClaim, GoogleClaimAttempt
from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register

INTERRUPTED_GIVEN_UP = "Given up: the worker stopped mid-call once too often."


def _exhausted(claim: GoogleClaim, now: datetime) -> dict | None:
    if not policy.exhausted(attempts_made=claim.attempts_made):
        return None
    if claim.ad_event_id:  # Google claimed it; only the cross-network answer was lost
        return {"state": State.ATTRIBUTED, "cross_network": policy.CrossNetwork.FAILED,
                "last_error": INTERRUPTED_GIVEN_UP}
    return {"state": State.FAILED, "last_error": INTERRUPTED_GIVEN_UP}


CLAIMS = kind_register(Kind(
    name="Google Ads claim", work_model=GoogleClaim, attempt_model=GoogleClaimAttempt,
    attempt_of="claim",
    send_task="google_ads.claim", timeout_setting="GOOGLE_ADS_TIMEOUT_SECONDS",
    grace_setting="GOOGLE_ADS_SWEEP_GRACE_SECONDS", exhausted=_exhausted,
))


def claims_enqueue(claim_ids: Sequence[str]) -> None:
    """One message per claim. Never raises: the sweep sends a claim whose message was lost."""
    work_enqueue(CLAIMS, claim_ids)
