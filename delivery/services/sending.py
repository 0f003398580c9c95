"""The claim -> send -> record cycle that workers, test sends and redelivered deliveries all
go through (spec: Events, "Delivery"; docs/delivery.md, "Never lost"): a worker claims a due
delivery with a conditional UPDATE, so a duplicated message sends nothing twice; the request is
built from the frozen body and the configuration as it is now; the network call happens
outside any transaction; every try is an attempt row; the policy decides success, retry or
failure, and a retry is scheduled after commit.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from delivery import crypto, enqueue, payloads, policy, transport
from delivery.models import (
    Delivery,
    DeliveryAttempt,
    HttpMethod,
    Kind,
    PostbackConfig,
    State,
    Webhook,
)
from delivery.policy import ErrorKind, Outcome


def delivery_attempt(*, delivery_id: uuid.UUID | str) -> DeliveryAttempt | None:
    """Try one delivery now, if it is due and nobody else holds it. Returns the attempt, or
    None when there was nothing to do (sent already, not due, claimed elsewhere, cancelled).

    Never call inside a transaction: the request in the middle takes up to
    DELIVERY_TIMEOUT_SECONDS.
    """
    now = timezone.now()
    delivery = (Delivery.objects.select_related("postback", "webhook")
                .filter(id=delivery_id).first())
    if delivery is None or delivery.state != State.PENDING:
        return None
    if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
        return None  # a duplicate message ahead of the retry schedule; its turn will come
    config = delivery.postback if delivery.kind == Kind.POSTBACK else delivery.webhook
    if config is None or (not config.active and not delivery.is_test):
        Delivery.objects.filter(id=delivery.id, state=State.PENDING).update(
            state=State.CANCELLED, next_attempt_at=None, completed_at=now, updated_at=now)
        return None
    request, problem = _outbound_request(delivery, config, now)
    attempt = _claim(delivery, request, now)
    if attempt is None:
        return None
    if problem is not None:
        outcome = Outcome(error_kind=ErrorKind.INVALID, error=problem)
    else:
        outcome = transport.send(request, timeout=settings.DELIVERY_TIMEOUT_SECONDS,
                                 allow_private=settings.DELIVERY_ALLOW_PRIVATE_NETWORKS)
    return _record(delivery, attempt, outcome)


def _outbound_request(delivery: Delivery, config: PostbackConfig | Webhook, now: datetime
                      ) -> tuple[transport.OutboundRequest, str | None]:
    """The request to send, built from the frozen facts (the delivery's body) and the
    configuration as it is now (so a corrected URL applies to pending retries)."""
    if isinstance(config, PostbackConfig):
        values = json.loads(delivery.body)
        url = payloads.render_url(config.postback_url, values)
        problem = policy.url_problem(url, schemes=("http", "https"))
        if problem is None and _authority(url) != _authority(config.postback_url):
            problem = "Filling in the macros changed the host; refused."
        if config.http_method == HttpMethod.POST:
            return transport.OutboundRequest(
                "POST", url, {"Content-Type": "application/json"},
                delivery.body.encode()), problem
        return transport.OutboundRequest("GET", url), problem
    body = delivery.body.encode()
    try:
        secret = crypto.secret_decrypt(config.secret_encrypted)
    except crypto.SecretUnreadable as exc:
        return transport.OutboundRequest("POST", config.url, body=body), str(exc)
    headers = payloads.webhook_headers(secret=secret, message_id=str(delivery.id),
                                       timestamp=int(now.timestamp()), body=body)
    return transport.OutboundRequest("POST", config.url, headers, body), None


def _authority(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port


def _claim(delivery: Delivery, request: transport.OutboundRequest, now: datetime
           ) -> DeliveryAttempt | None:
    """Take the delivery for this worker: a conditional UPDATE that only one caller wins, and
    the attempt row, in one short transaction with no network in it."""
    lease = timedelta(seconds=policy.lease_seconds(settings.DELIVERY_TIMEOUT_SECONDS))
    with transaction.atomic():
        claimed = Delivery.objects.filter(
            id=delivery.id, state=State.PENDING, next_attempt_at__lte=now,
        ).update(state=State.SENDING, attempts_made=F("attempts_made") + 1,
                 lease_expires_at=now + lease, updated_at=now)
        if not claimed:
            return None
        number = Delivery.objects.values_list("attempts_made", flat=True).get(id=delivery.id)
        return DeliveryAttempt.objects.create(
            delivery=delivery, app_id=delivery.app_id, kind=delivery.kind, number=number,
            http_method=request.method, url=payloads.mask_url(request.url), started_at=now)


def _record(delivery: Delivery, attempt: DeliveryAttempt, outcome: Outcome) -> DeliveryAttempt:
    verdict = policy.judge(outcome)
    decision = policy.decide(verdict=verdict, attempt_number=attempt.number,
                             max_attempts=delivery.max_attempts,
                             delays=settings.DELIVERY_RETRY_DELAYS, jitter=random.random())
    now = timezone.now()
    attempt.status_code = outcome.status_code
    attempt.response_body = outcome.response_body
    attempt.error_message = verdict.error_message or ""
    attempt.succeeded = verdict.succeeded
    attempt.duration_ms = outcome.duration_ms
    attempt.finished_at = now
    state = {"succeeded": State.SUCCEEDED, "retry": State.PENDING,
             "failed": State.FAILED}[decision.state]
    next_at = now + timedelta(seconds=decision.retry_in) if decision.retry_in is not None else None
    with transaction.atomic():
        # An UPDATE, not save(): if the app was deleted meanwhile there is nothing to write.
        DeliveryAttempt.objects.filter(id=attempt.id).update(
            status_code=attempt.status_code, response_body=attempt.response_body,
            error_message=attempt.error_message, succeeded=attempt.succeeded,
            duration_ms=attempt.duration_ms, finished_at=attempt.finished_at)
        # Only while this worker still holds the claim: if the sweep took the delivery back
        # (lease expired) its new owner decides, and this attempt is just logged.
        moved = Delivery.objects.filter(
            id=delivery.id, state=State.SENDING, attempts_made=attempt.number,
        ).update(state=state, next_attempt_at=next_at, lease_expires_at=None,
                 completed_at=None if state == State.PENDING else now, updated_at=now)
        if moved and decision.retry_in is not None:
            delay = decision.retry_in
            transaction.on_commit(
                lambda: enqueue.delivery_retry_enqueue(str(delivery.id), delay))
    if moved:
        delivery.state, delivery.next_attempt_at = state, next_at
    return attempt
