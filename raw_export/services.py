"""Destinations and runs (docs/export.md): create, change and remove a destination, test it,
start runs (on the schedule or now), and try one run through the outbox's claim, try, record
cycle, moving the destination's watermark only when every file of the run is written.

The files themselves are raw_export.writing's: a run hands it the storage, the watermark the
destination is written up to, and gets back the watermark it wrote up to and what it wrote.
"""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry import selectors as app_selectors
from attribution_site.model_update import model_update
from attribution_site.secrets import (
    DESTINATION_CREDENTIALS,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from outbox.claim import work_claim, work_due
from outbox.record import Result, attempt_record
from raw_export import enqueue, policy, writing
from raw_export.models import Destination, DestinationKind, Run, RunState, RunTrigger
from raw_export.storage import DestinationFacts, Storage, StorageError, probe, storage_for
from tracking.changes import Watermark

logger = logging.getLogger(__name__)

S3_FIELDS = ("bucket", "endpoint_url", "region", "access_key_id")
UPDATABLE_FIELDS = ("name", "kind", "bucket", "prefix", "endpoint_url", "region",
                    "access_key_id", "secret_access_key", "path", "format", "topics", "app_ids")
# The columns an update writes: the fields above, the secret sealed. Never the watermark or the
# last error, which a run writes meanwhile.
STORED_FIELDS = (*(name for name in UPDATABLE_FIELDS if name != "secret_access_key"),
                 "secret_access_key_encrypted")
UNEXPECTED = "The export failed unexpectedly; the server's log has the details."


@dataclass(frozen=True)
class TestResult:
    ok: bool
    reason: str = ""
    message: str = ""


def destination_create(*, organization_id: uuid.UUID, fields: dict[str, Any],
                       now: datetime | None = None) -> Destination:
    now = now or timezone.now()
    destination = Destination(organization_id=organization_id, created_at=now, updated_at=now)
    for name, value in _columns(fields, kind=fields["kind"]).items():
        setattr(destination, name, value)
    destination.save()
    return destination


def destination_update(*, destination: Destination, changes: dict[str, Any],
                       now: datetime | None = None) -> Destination:
    """Change the fields given. A run waiting for its retry is made due now: the change is
    likely the fix (new credentials, the right bucket) and the owner wants to see it work."""
    now = now or timezone.now()
    columns = _columns(changes, kind=changes.get("kind", destination.kind))
    with transaction.atomic():
        model_update(instance=destination, changes=columns, updatable=STORED_FIELDS, now=now)
        waiting = list(Run.objects.filter(destination=destination, state=RunState.PENDING)
                       .values_list("id", flat=True))
        Run.objects.filter(id__in=waiting, state=RunState.PENDING).update(
            next_attempt_at=now, updated_at=now)
        ids = [str(run_id) for run_id in waiting]
        transaction.on_commit(lambda: enqueue.runs_enqueue(ids))
    return destination


def _columns(fields: dict[str, Any], *, kind: str) -> dict[str, Any]:
    """The columns `fields` (as the API names them) set on a destination of `kind`: the secret
    sealed, and the other kind's fields emptied."""
    columns = {name: value for name, value in fields.items() if name != "secret_access_key"}
    secret = fields.get("secret_access_key")
    if secret is not None:
        columns["secret_access_key_encrypted"] = secret_encrypt(
            secret, purpose=DESTINATION_CREDENTIALS)
    if kind == DestinationKind.DIRECTORY:
        columns.update({name: "" for name in S3_FIELDS}, secret_access_key_encrypted="")
    else:
        columns["path"] = ""
    return columns


def destination_delete(*, destination: Destination) -> None:
    """Files already written stay where they are: they are the owner's."""
    destination.delete()


def destination_storage(destination: Destination, *, quick: bool = False) -> Storage:
    """The destination's storage, its secret decrypted; StorageError in words when it cannot
    be used (the secret unreadable, no export directory). An endpoint on a private network is
    refused by the storage itself, on the address it connects to (raw_export/storage.py)."""
    if destination.kind == DestinationKind.DIRECTORY:
        root = settings.RAW_EXPORT_DIRECTORY_ROOT
        if not root:
            raise StorageError("Directory destinations are off on this server: its operator "
                               "sets RAW_EXPORT_DIRECTORY_ROOT to turn them on.",
                               reason="denied")
        return storage_for(DestinationFacts(
            kind="directory", path=str(Path(root) / destination.path), directory_root=root))
    try:
        secret = secret_decrypt(destination.secret_access_key_encrypted,
                                purpose=DESTINATION_CREDENTIALS)
    except SecretUnreadable:
        raise StorageError("The secret access key can no longer be decrypted (the server's "
                           "SECRET_KEY changed): enter it again.", reason="bad_credentials"
                           ) from None
    return storage_for(DestinationFacts(
        kind="s3", bucket=destination.bucket, endpoint_url=destination.endpoint_url,
        region=destination.region or settings.RAW_EXPORT_DEFAULT_REGION,
        access_key_id=destination.access_key_id, secret_access_key=secret), quick=quick)


def destination_test(*, destination: Destination) -> TestResult:
    """Write and remove a probe object under the destination's prefix (not through the
    outbox: the owner is waiting for the answer, and it writes no data)."""
    try:
        probe(destination_storage(destination, quick=True), destination.prefix)
    except StorageError as exc:
        logger.info("data destination %s test failed: %s (%s)", destination.id, exc.message,
                    exc.detail)
        return TestResult(ok=False, reason=exc.reason, message=exc.message)
    return TestResult(ok=True)


def run_start(*, destination: Destination, trigger: str = RunTrigger.MANUAL,
              now: datetime | None = None) -> Run:
    """A run of the destination due now: its open run if it has one (made due now when it
    waits for a retry), else a new one."""
    now = now or timezone.now()
    with transaction.atomic():
        run = _open_run(destination)
        while run is None:
            try:
                with transaction.atomic():
                    run = Run.objects.create(destination=destination, trigger=trigger,
                                             next_attempt_at=now, created_at=now,
                                             updated_at=now)
            except IntegrityError:  # another caller opened one at the same moment
                run = _open_run(destination)  # (None again if it finished meanwhile)
        if run.state == RunState.PENDING and run.next_attempt_at > now:
            Run.objects.filter(id=run.id, state=RunState.PENDING).update(
                next_attempt_at=now, updated_at=now)
            run.next_attempt_at = now
        run_id = str(run.id)
        transaction.on_commit(lambda: enqueue.runs_enqueue([run_id]))
    return run


def _open_run(destination: Destination) -> Run | None:
    return Run.objects.filter(destination=destination,
                              state__in=[RunState.PENDING, RunState.SENDING]).first()


def runs_schedule(*, now: datetime) -> list[str]:
    """Beat's tick (every RAW_EXPORT_INTERVAL_SECONDS): a run for every destination without an
    open one, except those whose last run failed within the pause (policy.run_due)."""
    started = []
    open_ids = set(Run.objects.filter(state__in=[RunState.PENDING, RunState.SENDING])
                   .values_list("destination_id", flat=True))
    for destination in Destination.objects.exclude(id__in=open_ids).iterator():
        last = (Run.objects.filter(destination=destination).order_by("-created_at")
                .only("state", "completed_at").first())
        if not policy.run_due(last_state=last.state if last else None,
                              last_completed_at=last.completed_at if last else None, now=now):
            continue
        started.append(str(run_start(destination=destination, trigger=RunTrigger.SCHEDULE,
                                     now=now).id))
    return started


def run_attempt(*, run_id: uuid.UUID | str) -> Any | None:
    """Try one run now, if it is due and nobody else holds it. Never call inside a
    transaction: it writes files for minutes."""
    now = timezone.now()
    run = work_due(enqueue.RUNS, run_id, now=now,
                   queryset=Run.objects.select_related("destination"))
    if run is None:
        return None
    attempt = work_claim(enqueue.RUNS, run, now=now)
    if attempt is None:
        return None
    destination = run.destination
    serial = destination.watermark_serial
    outcome, reason, error = None, "", None
    try:
        outcome = writing.write_run(
            storage=destination_storage(destination), prefix=destination.prefix,
            fmt=destination.format, topics=list(destination.topics),
            app_ids=_app_ids(destination), since=destination.watermark, run_id=str(run.id))
    except StorageError as exc:
        reason, error = exc.reason, exc.message
        logger.warning("raw-data export run %s of destination %s failed: %s (%s)", run.id,
                       destination.id, exc.message, exc.detail)
    except Exception:  # noqa: BLE001 - recorded and retried like an outage; the log has it
        reason, error = "internal", UNEXPECTED
        logger.exception("raw-data export run %s of destination %s failed", run.id,
                         destination.id)
    decision = policy.decide(error=error, attempt_number=attempt.number,
                             jitter=random.random())
    _record(run, attempt, destination, decision, outcome=outcome, reason=reason, error=error,
            serial=serial)
    return attempt


def _record(run, attempt, destination, decision, *, outcome, reason, error, serial) -> None:
    done = timezone.now()
    work: dict[str, Any] = {"error_message": error or ""}
    if outcome is not None:
        topics = {topic: {"rows": counts.rows, "bytes": counts.bytes}
                  for topic, counts in outcome.topics.items()}
        work.update(topics=topics, until=outcome.until,
                    rows=sum(t["rows"] for t in topics.values()),
                    bytes=sum(t["bytes"] for t in topics.values()),
                    hours_completed=[_plain(hour) for hour in outcome.hours_completed])
    with transaction.atomic():
        moved = attempt_record(enqueue.RUNS, run, attempt, Result(
            state=decision.state, retry_in=decision.retry_in,
            attempt={"reason": reason, "error_message": error or ""}, work=work), now=done)
        if not moved:  # the sweep took the run back; its new owner records it
            return
        rows = Destination.objects.filter(id=destination.id)
        if outcome is None:
            rows.update(last_error=error, last_error_at=done)
            return
        # Conditional on the serial this run started from: a run that lost its claim and
        # finished late must not move the watermark back over a newer run's.
        rows.filter(watermark_serial=serial).update(
            watermark=outcome.until, watermark_serial=serial + 1,
            written_up_to=Watermark.from_json(outcome.until).taken_at, last_error="",
            last_error_at=None)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value.isoformat() if hasattr(value, "isoformat") else value


def _app_ids(destination: Destination) -> list[uuid.UUID]:
    """The apps the destination covers, as they are now: its list (apps deleted since left
    out), or every app of the organization when the list is empty."""
    apps = app_selectors.apps_for_organization(organization_id=destination.organization_id)
    ids = list(apps.values_list("id", flat=True))
    if destination.app_ids:
        chosen = {uuid.UUID(str(app_id)) for app_id in destination.app_ids}
        ids = [app_id for app_id in ids if app_id in chosen]
    return ids

