"""Data-subject requests, written (docs/privacy.md, "Erasure and access (OpenDSR)"): filing one
(the API, the SDK's forget, the console), cancelling one, running one (erasure, or the access
document), and sending its status callbacks, both through the outbox (docs/outbox.md).

A request's run is an outbox kind (privacy.enqueue.RUNS): a worker claims it (the request is
then in progress), and runs it in one transaction that holds the run's row: the rows of every
app are erased (privacy.erasure), the request is completed, its identity blanked, its callbacks
written and the attempt recorded, all or nothing. A run that raises rolled back whole; its
attempt keeps the error, and it is tried again on privacy.policy's schedule, then the request
fails and its callbacks say so. Running a request twice changes nothing more.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Sequence
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry.models import App
from attribution_site.api.exceptions import Conflict
from attribution_site.secrets import (
    PRIVACY_CALLBACK_SIGNING,
    SecretUnreadable,
    secret_decrypt,
    secret_encrypt,
)
from delivery.payloads import USER_AGENT, secret_generate
from outbox import http
from outbox.claim import work_claim, work_due
from outbox.kind import SENDING
from outbox.record import Result, attempt_record
from privacy import callbacks, ending, enqueue, erasure, identities, policy
from privacy.models import (
    AccessDocument,
    RequestRun,
    RequestRunAttempt,
    RequestStatus,
    RequestType,
    RunState,
    Source,
    StatusCallback,
    StatusCallbackAttempt,
    SubjectRequest,
)
from tracking import erasure as tracking_erasure
from web import selectors as web_selectors

logger = logging.getLogger(__name__)

OPEN = ending.OPEN


def request_file(*, app: App, request_type: str, identity_type: str, identity_value: str,
                 submitted_time: datetime, now: datetime, source: str,
                 request_id: uuid.UUID | None = None, status_callback_urls: Sequence[str] = (),
                 api_version: str = "1.0", encoded_request: str = "", base_url: str = "",
                 requested_by=None) -> tuple[SubjectRequest, str | None]:
    """File a request; it runs once this commits. Returns it and, when it has callback URLs,
    the secret its callbacks are signed with (shown once, never stored in the clear).
    Conflict when the id was used before."""
    value = identities.identity_normalize(identity_type, identity_value)
    secret = secret_generate() if status_callback_urls else None
    subject_request = SubjectRequest(
        id=request_id or uuid.uuid4(), app=app, request_type=request_type, source=source,
        identity_type=identity_type, identity_hash=identities.identity_hash(identity_type, value),
        identity_value=value, encoded_request=encoded_request, submitted_time=submitted_time,
        received_time=now, expected_completion_time=now + policy.EXPECTED_COMPLETION,
        api_version=api_version, status_callback_urls=list(status_callback_urls),
        callback_secret_encrypted=(secret_encrypt(secret, purpose=PRIVACY_CALLBACK_SIGNING)
                                   if secret else ""),
        base_url=base_url, requested_by=requested_by, updated_at=now)
    try:
        with transaction.atomic():
            subject_request.save(force_insert=True)
            RequestRun.objects.create(request=subject_request, next_attempt_at=now,
                                      updated_at=now)
            request_ids = [str(subject_request.id)]
            transaction.on_commit(lambda: enqueue.runs_enqueue(request_ids))
    except IntegrityError:
        raise Conflict("A request with this subject_request_id exists already.", {
            "subject_request_id": ["Already used."]}) from None
    return subject_request, secret


def app_of(*, app_id: uuid.UUID) -> App:
    return App.objects.get(id=app_id)


def device_identity_type(platform: str) -> str:
    """The OpenDSR type of a device id the SDK sent: every device-id type erases the same rows,
    so the app's platform only names it (an iOS app's IDFA, else an Android advertising id)."""
    return "ios_advertising_id" if platform == "ios" else "android_advertising_id"


def forget_file(*, app: App, device_id: str, now: datetime) -> tuple[SubjectRequest, bool]:
    """The SDK's "forget me": an erasure of the device, or the one still open for it (an SDK
    that retries files nothing twice). Returns it and whether it is new."""
    identity_type = device_identity_type(app.platform)
    value = identities.identity_normalize(identity_type, device_id)
    open_request = SubjectRequest.objects.filter(
        app=app, request_type=RequestType.ERASURE,
        identity_hash=identities.identity_hash(identity_type, value),
        status__in=OPEN).first()
    if open_request is not None:
        return open_request, False
    subject_request, _ = request_file(
        app=app, request_type=RequestType.ERASURE, identity_type=identity_type,
        identity_value=value, submitted_time=now, now=now, source=Source.SDK)
    return subject_request, True


def request_cancel(*, subject_request: SubjectRequest, now: datetime) -> SubjectRequest:
    """Cancel a pending request (OpenDSR 9: only while pending); its callbacks say so."""
    with transaction.atomic():
        # The run first, as a worker's claim does (no deadlock between the two): a run a
        # worker holds, or one that has been tried, is no longer cancelled.
        run_cancelled = RequestRun.objects.filter(
            pk=subject_request.id, state=RunState.PENDING).update(
            state=RunState.CANCELLED, next_attempt_at=None, completed_at=now, updated_at=now)
        cancelled = run_cancelled and SubjectRequest.objects.filter(
            id=subject_request.id, status=RequestStatus.PENDING).update(
            status=RequestStatus.CANCELLED, completed_at=now, updated_at=now,
            identity_value="", encoded_request="")
        if not cancelled:
            subject_request.refresh_from_db(fields=["status"])
            raise Conflict(f"Only a pending request can be cancelled; this one is "
                           f"{subject_request.status}.")
        subject_request.refresh_from_db()
        _callbacks_send(subject_request, now=now)
    return subject_request


def request_run(*, request_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """Run a request now, if its run is due and nobody else holds it (the outbox's claim -> try
    -> record cycle): erase, or make the access document. Returns whether it completed now.
    Never call inside a transaction: the claim must commit before the run begins."""
    now = now or timezone.now()
    run = work_due(enqueue.RUNS, request_id, now=now)
    if run is None:  # done, failed, cancelled, held by another worker, or not due yet
        return False
    with transaction.atomic():
        attempt = work_claim(enqueue.RUNS, run, now=now)
        if attempt is None:
            return False
        SubjectRequest.objects.filter(id=run.pk, status=RequestStatus.PENDING).update(
            status=RequestStatus.IN_PROGRESS, started_at=now, updated_at=now)
    try:
        return _run(run, attempt, now=now)
    except Exception as exc:  # noqa: BLE001 - whatever an eraser raises fails this try
        logger.exception("privacy request %s: attempt %d raised", run.pk, attempt.number)
        _run_failed(run, attempt, exc)
        return False


def _run(run: RequestRun, attempt: RequestRunAttempt, *, now: datetime) -> bool:
    with transaction.atomic():
        # The run's row stays locked until this commits: the sweep skips locked rows, so a run
        # past its lease is never taken back from a worker that is still at it.
        held = RequestRun.objects.select_for_update().filter(
            pk=run.pk, state=SENDING, attempts_made=attempt.number)
        if not list(held.values_list("pk", flat=True)):
            return False  # the sweep took it back before this worker began; its new owner runs it
        subject_request = SubjectRequest.objects.select_related("app").get(id=run.pk)
        ran = subject_request.status in OPEN
        if ran:  # else ended meanwhile (by a worker of the version before runs were a kind)
            found = _erase_or_collect(subject_request, now=now)
            SubjectRequest.objects.filter(id=subject_request.id).update(
                status=RequestStatus.COMPLETED, completed_at=now, updated_at=now, found=found,
                identity_value="", encoded_request="")
            subject_request.refresh_from_db()
            _callbacks_send(subject_request, now=now)
        attempt_record(enqueue.RUNS, run, attempt, Result(
            state=RunState.SUCCEEDED, retry_in=None, attempt={}, work={"last_error": ""}),
            now=timezone.now())
    if ran:
        logger.info("privacy request %s (%s) completed: %s", subject_request.id,
                    subject_request.request_type, subject_request.found)
    return ran


def _erase_or_collect(subject_request: SubjectRequest, *, now: datetime) -> dict[str, int]:
    """Erase the subject's rows, or write the access document. Returns what was found."""
    subject = _subject(subject_request)
    kwargs = {"install_ids": subject.install_ids, "device_ids": subject.device_ids}
    app_id = subject_request.app_id
    if subject_request.request_type == RequestType.ERASURE:
        found: dict[str, int] = {}
        for erase in erasure.ERASERS:
            for table, rows in erase(app_id, **kwargs).items():
                found[table] = found.get(table, 0) + rows
        return found
    records: dict[str, list] = {}
    for collect in erasure.COLLECTORS:
        records.update(collect(app_id, **kwargs))
    AccessDocument.objects.create(request=subject_request, created_at=now, body=_document(
        subject_request, records, now=now))
    return {name: len(rows) for name, rows in records.items()}


def _run_failed(run: RequestRun, attempt: RequestRunAttempt, exc: Exception) -> None:
    """Record a try that raised (everything it did was rolled back): tried again later, or,
    after its last try, the request fails and its controller is told."""
    error = policy.run_error(type(exc).__name__, str(exc))
    retry_in = policy.run_retry_in(attempt_number=attempt.number, jitter=random.random())
    now = timezone.now()
    with transaction.atomic():
        moved = attempt_record(enqueue.RUNS, run, attempt, Result(
            state=RunState.FAILED, retry_in=retry_in, attempt={"error_message": error},
            work={"last_error": error}), now=now)
        if moved and retry_in is None:
            callback_ids = ending.requests_fail(request_ids=[run.pk], now=now)
            if callback_ids:
                transaction.on_commit(lambda: enqueue.callbacks_enqueue(callback_ids))
    if retry_in is None:
        logger.warning("privacy request %s failed after %d attempts: %s", run.pk,
                       attempt.number, error)


def _subject(subject_request: SubjectRequest) -> tracking_erasure.Subject:
    kind, value = subject_request.identity_type, subject_request.identity_value
    if kind in identities.DEVICE_ID_TYPES or kind == identities.WEB_ID:
        return tracking_erasure.subject_find(app_id=subject_request.app_id, device_ids=[value])
    if kind == "install_id":
        return tracking_erasure.subject_find(app_id=subject_request.app_id,
                                             install_ids=[uuid.UUID(value)])
    # A customer id also names the web ids the site identified with it (web/identify).
    return tracking_erasure.subject_find(
        app_id=subject_request.app_id, customer_user_ids=[value],
        device_ids=web_selectors.web_ids_for_customer(app_id=subject_request.app_id,
                                                      customer_user_id=value))


def _document(subject_request: SubjectRequest, records: dict, *, now: datetime) -> dict:
    document = {
        "subject_request_id": str(subject_request.id),
        "subject_request_type": subject_request.request_type,
        "identity_type": subject_request.identity_type,
        "property_id": str(subject_request.app_id),
        "generated_time": now,
        "records": records,
    }
    # Times, ids and amounts as JSON text, the way the API writes them.
    return json.loads(json.dumps(document, cls=DjangoJSONEncoder))


def _callbacks_send(subject_request: SubjectRequest, *, now: datetime) -> None:
    """The callbacks of the request's status as it is now, sent after commit."""
    callback_ids = ending.callbacks_write(subject_request, now=now)
    if callback_ids:
        transaction.on_commit(lambda: enqueue.callbacks_enqueue(callback_ids))


def callback_attempt(*, callback_id: uuid.UUID | str) -> StatusCallbackAttempt | None:
    """Send one status callback now, if it is due and nobody else holds it (the outbox's
    claim -> try -> record cycle). Never call inside a transaction."""
    now = timezone.now()
    callback = work_due(enqueue.CALLBACKS, callback_id, now=now,
                        queryset=StatusCallback.objects.select_related("request"))
    if callback is None:
        return None
    attempt = work_claim(enqueue.CALLBACKS, callback, now=now)
    if attempt is None:
        return None
    body = callback.body.encode()
    invalid = None
    try:
        secret = secret_decrypt(callback.request.callback_secret_encrypted,
                                purpose=PRIVACY_CALLBACK_SIGNING)
    except SecretUnreadable as exc:
        invalid, secret = str(exc), ""
    headers = {"User-Agent": USER_AGENT, **callbacks.callback_headers(
        secret=secret, message_id=str(callback.id), timestamp=int(now.timestamp()), body=body,
        subject_request_id=str(callback.request_id),
        processor_domain=_domain(callback.request.base_url))}
    if invalid is not None:
        answer = http.Answer(error=invalid)
    else:
        answer = http.send(http.OutboundRequest("POST", callback.url, headers, body),
                           timeout=settings.PRIVACY_CALLBACK_TIMEOUT_SECONDS,
                           plain_http_private_only=True)
    decision = policy.decide(
        status_code=answer.status_code, error=answer.error,
        invalid=invalid is not None or answer.failure == http.Failure.REFUSED,
        attempt_number=attempt.number, jitter=random.random())
    attempt_record(enqueue.CALLBACKS, callback, attempt, Result(
        state=decision.state, retry_in=decision.retry_in, attempt={
            "status_code": answer.status_code,
            "response_body": answer.body[:policy.RESPONSE_BODY_LIMIT],
            "error_message": decision.error_message, "duration_ms": answer.duration_ms}),
        now=timezone.now())
    return attempt


def _domain(base_url: str) -> str:
    return urlsplit(base_url).hostname or ""
