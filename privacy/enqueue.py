"""Status callbacks as a kind of outbox work (docs/outbox.md, "Adding a kind"), and the message
that runs a request once it commits. Messages go by task name (`privacy.callback_send`,
`privacy.request_run`), so nothing here imports privacy.tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from outbox.enqueue import task_send, work_enqueue
from outbox.kind import Kind
from privacy import policy
from privacy.models import CallbackState, StatusCallback, StatusCallbackAttempt


def _exhausted(callback: StatusCallback, now: datetime) -> dict | None:
    if policy.exhausted(callback.attempts_made):
        return {"state": CallbackState.FAILED}
    return None


CALLBACKS = Kind(
    name="privacy status callback", work_model=StatusCallback,
    attempt_model=StatusCallbackAttempt, attempt_of="callback",
    send_task="privacy.callback_send", timeout_setting="PRIVACY_CALLBACK_TIMEOUT_SECONDS",
    grace_setting="PRIVACY_SWEEP_GRACE_SECONDS", exhausted=_exhausted,
)


def callbacks_enqueue(callback_ids: Sequence[str]) -> None:
    """One message per callback. Never raises: the sweep sends one whose message was lost."""
    work_enqueue(CALLBACKS, callback_ids)


def request_enqueue(request_id: str) -> None:
    """Run a request soon. Never raises: beat's request sweep runs one left pending."""
    task_send("privacy.request_run", (request_id,))
