"""The rules of export runs (docs/export.md, "Faults"). Pure: standard library and
outbox.timing only; the outcome of a try and the time are handed in.

A failed try is retried with backoff, whatever the reason: a bucket that is down, full or
refusing the credentials usually comes back once its owner fixes it, and the watermark has not
moved, so the retry writes everything the failed try did not. After MAX_ATTEMPTS a run is
recorded as failed; the schedule then starts a new run from the same watermark, no sooner than
FAILED_RUN_PAUSE after it (so a long outage costs one try an hour, not one per interval).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from outbox import timing

# One retry per delay (seconds): about 2 hours of tries before the run is failed.
RETRY_DELAYS = (60, 120, 300, 600, 1200, 1800, 3600)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
FAILED_RUN_PAUSE = timedelta(hours=1)


@dataclass(frozen=True)
class Decision:
    state: str  # "succeeded" or "failed" when final
    retry_in: float | None  # seconds, when it is tried again


def decide(*, error: str | None, attempt_number: int, jitter: float) -> Decision:
    if error is None:
        return Decision("succeeded", None)
    if exhausted(attempt_number):
        return Decision("failed", None)
    return Decision("failed", timing.jittered(RETRY_DELAYS[attempt_number - 1], jitter))


def exhausted(attempts_made: int) -> bool:
    return attempts_made >= MAX_ATTEMPTS


def run_due(*, last_state: str | None, last_completed_at: datetime | None,
            now: datetime) -> bool:
    """Whether the schedule starts a run of a destination with no open run now."""
    if last_state == "failed" and last_completed_at is not None:
        return now - last_completed_at >= FAILED_RUN_PAUSE
    return True


def behind(*, written_up_to: datetime | None, created_at: datetime, now: datetime,
           limit: timedelta) -> timedelta | None:
    """How far a destination lags when that is more than `limit`, else None. One that never
    completed a run lags from its creation."""
    lag = now - (written_up_to or created_at)
    return lag if lag > limit else None
