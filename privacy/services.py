"""Data-subject requests, written (docs/privacy.md, "Erasure and access (OpenDSR)"): filing one
(the API, the SDK's forget, the console), cancelling one, running one (erasure, or the access
document), and sending its status callbacks through the outbox.

A request runs in one transaction: the rows of every app are erased (privacy.erasure), the
request is completed, its identity blanked and its callbacks written, all or nothing. Running
it twice changes nothing more, which is what lets the sweep re-run one whose worker was lost.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
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
from delivery import transport
from delivery.payloads import secret_generate
from delivery.policy import ErrorKind, Outcome
from outbox.claim import work_claim, work_due
from outbox.record import Result, attempt_record
from outbox.sweep import grace_seconds, work_sweep
from privacy import callbacks, enqueue, erasure, identities, links, policy
from privacy.models import (
    AccessDocument,
    RequestStatus,
    RequestType,
    Source,
    StatusCallback,
    StatusCallbackAttempt,
    SubjectRequest,
)
from tracking import erasure as tracking_erasure

logger = logging.getLogger(__name__)

# A request still in progress this long after it started lost its worker: it runs again.
RUN_LEASE = timedelta(minutes=30)


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
            request_id_text = str(subject_request.id)
            transaction.on_commit(lambda: enqueue.request_enqueue(request_id_text))
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
        status__in=[RequestStatus.PENDING, RequestStatus.IN_PROGRESS]).first()
    if open_request is not None:
        return open_request, False
    subject_request, _ = request_file(
        app=app, request_type=RequestType.ERASURE, identity_type=identity_type,
        identity_value=value, submitted_time=now, now=now, source=Source.SDK)
    return subject_request, True


def request_cancel(*, subject_request: SubjectRequest, now: datetime) -> SubjectRequest:
    """Cancel a pending request (OpenDSR 9: only while pending); its callbacks say so."""
    with transaction.atomic():
        cancelled = SubjectRequest.objects.filter(
            id=subject_request.id, status=RequestStatus.PENDING).update(
            status=RequestStatus.CANCELLED, completed_at=now, updated_at=now,
            identity_value="", encoded_request="")
        if not cancelled:
            subject_request.refresh_from_db(fields=["status"])
            raise Conflict(f"Only a pending request can be cancelled; this one is "
                           f"{subject_request.status}.")
        subject_request.refresh_from_db()
        _callbacks_write(subject_request, now=now)
    return subject_request


def request_run(*, request_id: uuid.UUID | str, now: datetime | None = None) -> bool:
    """Run a pending request now, if nobody else is: erase, or make the access document.
    Returns whether it ran."""
    now = now or timezone.now()
    claimed = SubjectRequest.objects.filter(id=request_id, status=RequestStatus.PENDING).update(
        status=RequestStatus.IN_PROGRESS, started_at=now, updated_at=now)
    if not claimed:
        return False
    subject_request = SubjectRequest.objects.select_related("app").get(id=request_id)
    with transaction.atomic():
        subject = _subject(subject_request)
        kwargs = {"install_ids": subject.install_ids, "device_ids": subject.device_ids}
        app_id = subject_request.app_id
        if subject_request.request_type == RequestType.ERASURE:
            found: dict[str, int] = {}
            for erase in erasure.ERASERS:
                for table, rows in erase(app_id, **kwargs).items():
                    found[table] = found.get(table, 0) + rows
        else:
            records: dict[str, list] = {}
            for collect in erasure.COLLECTORS:
                records.update(collect(app_id, **kwargs))
            found = {name: len(rows) for name, rows in records.items()}
            AccessDocument.objects.create(request=subject_request, created_at=now, body=_document(
                subject_request, records, now=now))
        SubjectRequest.objects.filter(id=subject_request.id).update(
            status=RequestStatus.COMPLETED, completed_at=now, updated_at=now, found=found,
            identity_value="", encoded_request="")
        subject_request.refresh_from_db()
        _callbacks_write(subject_request, now=now)
    logger.info("privacy request %s (%s) completed: %s", subject_request.id,
                subject_request.request_type, found)
    return True


def _subject(subject_request: SubjectRequest) -> tracking_erasure.Subject:
    kind, value = subject_request.identity_type, subject_request.identity_value
    if kind in identities.DEVICE_ID_TYPES:
        return tracking_erasure.subject_find(app_id=subject_request.app_id, device_ids=[value])
    if kind == "install_id":
        return tracking_erasure.subject_find(app_id=subject_request.app_id,
                                             install_ids=[uuid.UUID(value)])
    return tracking_erasure.subject_find(app_id=subject_request.app_id,
                                         customer_user_ids=[value])


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


def results_url(subject_request: SubjectRequest) -> str | None:
    """The document's link (absolute when the request's base URL is known)."""
    if subject_request.request_type == RequestType.ERASURE or \
            subject_request.status != RequestStatus.COMPLETED:
        return None
    path = f"/api/v1/privacy/documents/{links.document_token(subject_request.id)}"
    return subject_request.base_url.rstrip("/") + path


def _callbacks_write(subject_request: SubjectRequest, *, now: datetime) -> None:
    """One callback row per URL with the status as it is now, sent after commit."""
    if not subject_request.status_callback_urls:
        return
    count = sum(subject_request.found.values()) if subject_request.found else None
    rows = [StatusCallback(
        request=subject_request, url=url, next_attempt_at=now, created_at=now, updated_at=now,
        body=callbacks.callback_body(
            controller_id=str(subject_request.app.organization_id), status_callback_url=url,
            subject_request_id=str(subject_request.id), request_status=subject_request.status,
            expected_completion_time=subject_request.expected_completion_time,
            api_version=subject_request.api_version,
            results_url=results_url(subject_request),
            results_count=count if subject_request.status == RequestStatus.COMPLETED else None))
        for url in subject_request.status_callback_urls]
    StatusCallback.objects.bulk_create(rows)
    ids = [str(row.id) for row in rows]
    transaction.on_commit(lambda: enqueue.callbacks_enqueue(ids))


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
    request = transport.OutboundRequest("POST", callback.url, callbacks.callback_headers(
        secret=secret, message_id=str(callback.id), timestamp=int(now.timestamp()), body=body,
        subject_request_id=str(callback.request_id),
        processor_domain=_domain(callback.request.base_url)), body)
    if invalid is not None:
        outcome = Outcome(error_kind=ErrorKind.INVALID, error=invalid)
    else:
        outcome = transport.send(request, timeout=settings.PRIVACY_CALLBACK_TIMEOUT_SECONDS,
                                 allow_private=settings.DELIVERY_ALLOW_PRIVATE_NETWORKS,
                                 plain_http_private_only=True)
    decision = policy.decide(
        status_code=outcome.status_code, error=outcome.error,
        invalid=outcome.error_kind in (ErrorKind.INVALID, ErrorKind.REFUSED),
        attempt_number=attempt.number, jitter=random.random())
    attempt_record(enqueue.CALLBACKS, callback, attempt, Result(
        state=decision.state, retry_in=decision.retry_in, attempt={
            "status_code": outcome.status_code,
            "response_body": outcome.response_body[:policy.RESPONSE_BODY_LIMIT],
            "error_message": decision.error_message, "duration_ms": outcome.duration_ms}),
        now=timezone.now())
    return attempt


def _domain(base_url: str) -> str:
    return urlsplit(base_url).hostname or ""


def callbacks_sweep(*, now: datetime) -> list[str]:
    return work_sweep(enqueue.CALLBACKS, now=now, grace_seconds=grace_seconds(enqueue.CALLBACKS))


def requests_sweep(*, now: datetime) -> list[str]:
    """Run again what lost its message (pending past the grace) or its worker (in progress
    past RUN_LEASE), and delete access documents past their lifetime. Returns the ids sent."""
    lost_worker = SubjectRequest.objects.filter(status=RequestStatus.IN_PROGRESS,
                                                started_at__lte=now - RUN_LEASE)
    lost_worker.update(status=RequestStatus.PENDING, updated_at=now)
    cutoff = now - timedelta(seconds=grace_seconds(enqueue.CALLBACKS))
    due = [str(pk) for pk in SubjectRequest.objects.filter(
        status=RequestStatus.PENDING, updated_at__lte=cutoff).values_list("id", flat=True)[:100]]
    # Marked as sent, so the next sweep waits another grace period for it.
    SubjectRequest.objects.filter(id__in=due, status=RequestStatus.PENDING).update(
        updated_at=now)
    for request_id in due:
        enqueue.request_enqueue(request_id)
    AccessDocument.objects.filter(created_at__lte=now - links.DOCUMENT_LIFETIME).delete()
    return due
