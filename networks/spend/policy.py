"""When a cost pull that failed is tried again (docs/networks.md, "Ad spend"). Pure: standard
library and the outbox's pure timing only; the attempt number and a random draw are handed in.

A network that is down (no answer, 5xx) is tried again with backoff over a few hours, so an
outage loses no pull; one that says "too many requests" (429, or its own code for it) is asked
again when its Retry-After says, else on the same schedule; a refusal (401, 403, a bad account
id, an error inside a 200) is final: asking again changes nothing until someone fixes the
connection, and the pull shows the network's words. Beat's next pull tries afresh either way.
"""

from __future__ import annotations

import enum

from networks.spend.core import Failure
from outbox import timing

UNAVAILABLE_DELAYS = (60, 300, 1800, 3600)
MAX_ATTEMPTS = 1 + len(UNAVAILABLE_DELAYS)


class State(enum.StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    DONE = "done"  # the rows of every day of the window were replaced
    FAILED = "failed"  # refused, or unavailable until the schedule ran out


def retry_in(*, failure: Failure, attempt_number: int, retry_after: float | None,
             jitter: float) -> float | None:
    """Seconds until the next try, or None when the pull fails now."""
    if failure == Failure.REFUSED or attempt_number >= MAX_ATTEMPTS:
        return None
    delay = timing.jittered(UNAVAILABLE_DELAYS[attempt_number - 1], jitter)
    if failure == Failure.RATE_LIMITED and retry_after is not None:
        return retry_after
    return delay


def exhausted(*, attempts_made: int) -> bool:
    """A pull whose worker was lost this often is given up (the sweep's rule)."""
    return attempts_made >= MAX_ATTEMPTS
