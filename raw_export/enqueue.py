"""Export runs as a kind of outbox work (docs/outbox.md, "Adding a kind"). Messages go by task
name (`raw_export.run`), so nothing here imports raw_export.tasks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from outbox.enqueue import work_enqueue
from outbox.kind import Kind, kind_register
from raw_export import policy
from raw_export.models import Run, RunAttempt, RunState


def _exhausted(run: Run, now: datetime) -> dict | None:
    if policy.exhausted(run.attempts_made):
        return {"state": RunState.FAILED}
    return None


RUNS = kind_register(Kind(
    name="raw-data export run", work_model=Run, attempt_model=RunAttempt, attempt_of="run",
    send_task="raw_export.run", timeout_setting="RAW_EXPORT_TIMEOUT_SECONDS",
    grace_setting="RAW_EXPORT_SWEEP_GRACE_SECONDS", exhausted=_exhausted,
    interrupted_fields={"reason": "interrupted"},
))


def runs_enqueue(run_ids: Sequence[str]) -> None:
    """One message per run. Never raises: the sweep sends one whose message was lost."""
    work_enqueue(RUNS, run_ids)
