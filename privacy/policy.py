"""Status callbacks' policy (OpenDSR 8.5: "Processors MUST try to send callbacks at least once
... SHOULD retry callbacks when they have failed"), runs' policy (when a run that raised is tried
again, and when it fails for good), and when a request is expected done.

Pure: standard library (and outbox.timing) only; the outcome of a try is handed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from outbox import timing

# The answer's `expected_completion_time`: a worker runs a request within minutes; a day
# leaves room for a worker outage without promising what might be missed.
EXPECTED_COMPLETION = timedelta(hours=24)
# One retry per delay: a controller's endpoint down for most of a day still gets the status.
RETRY_DELAYS = (60, 300, 1800, 7200, 21600)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# 4xx answers are the receiver saying no (a wrong URL, a refused signature), except these.
TRANSIENT_STATUSES = frozenset({408, 425, 429})
RESPONSE_BODY_LIMIT = 2048


@dataclass(frozen=True)
class Decision:
    state: str  # "succeeded" or "failed" when final
    retry_in: float | None  # seconds, when it is tried again
    error_message: str = ""


def decide(*, status_code: int | None, error: str | None, invalid: bool,
           attempt_number: int, jitter: float) -> Decision:
    """What one try means. `invalid`: the request could not even be made (a refused
    destination); `error`: no answer (timeout, refused connection)."""
    if status_code is not None and 200 <= status_code < 300:
        return Decision("succeeded", None)
    if invalid:
        return Decision("failed", None, error or "Refused destination.")
    message = error or f"HTTP {status_code}"
    permanent = (status_code is not None and 300 <= status_code < 500
                 and status_code not in TRANSIENT_STATUSES)
    if permanent or exhausted(attempt_number):
        return Decision("failed", None, message)
    return Decision("failed", timing.jittered(RETRY_DELAYS[attempt_number - 1], jitter),
                    message)


def exhausted(attempts_made: int) -> bool:
    return attempts_made >= MAX_ATTEMPTS


# --- Runs ------------------------------------------------------------------------------------
# A run that raised (the database went away, a lock timed out, a bug) rolled back whole: nothing
# was erased. Tried again after each delay, then the request fails, well within the day
# `expected_completion_time` promises: a passing outage is ridden out, a bug is shown.
RUN_RETRY_DELAYS = (60, 300, 1800, 7200)
RUN_MAX_ATTEMPTS = len(RUN_RETRY_DELAYS) + 1
# Of an error, the words kept and shown to the organization's admins: the exception's first
# line (a database error's DETAIL line, which may quote row values, is left out).
RUN_ERROR_LIMIT = 300


def run_retry_in(*, attempt_number: int, jitter: float) -> float | None:
    """Seconds until a run that raised on attempt `attempt_number` (1-based) is tried again;
    None when that was its last try."""
    if run_exhausted(attempt_number):
        return None
    return timing.jittered(RUN_RETRY_DELAYS[attempt_number - 1], jitter)


def run_exhausted(attempts_made: int) -> bool:
    return attempts_made >= RUN_MAX_ATTEMPTS


def run_error(exc_type: str, message: str) -> str:
    """What the request shows of a run's error: "what failed: why", in words."""
    first_line = (message.strip().splitlines() or [""])[0].strip()
    words = f"{exc_type}: {first_line}" if first_line else exc_type
    return f"The run stopped with an error: {words}"[:RUN_ERROR_LIMIT]
