"""Sending one delivery (spec: Events, "Delivery"; docs/delivery.md, "Never lost"), which
workers, test sends and redelivered deliveries all go through: the outbox's claim -> try ->
record cycle (docs/outbox.md) with what is delivery's own in the middle. The request is built
from the frozen body and the configuration as it is now; the network call happens outside any
transaction; the policy decides success, retry or failure.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import replace
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from attribution_site.secrets import WEBHOOK_SIGNING, SecretUnreadable, secret_decrypt
from delivery import payloads, policy
from delivery.enqueue import DELIVERIES
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
from delivery.services.platforms import platform_request
from outbox import http
from outbox.claim import work_claim, work_due
from outbox.json_client import post_json
from outbox.record import Result, attempt_record
from outbox.replies import ReplyClass, classify

PLATFORM_KINDS = frozenset({Kind.GOOGLE_ADS, Kind.META})


def delivery_attempt(*, delivery_id: uuid.UUID | str) -> DeliveryAttempt | None:
    """Try one delivery now, if it is due and nobody else holds it. Returns the attempt, or
    None when there was nothing to do (sent already, not due, claimed elsewhere, cancelled).

    Never call inside a transaction: the request in the middle takes up to
    DELIVERY_TIMEOUT_SECONDS.
    """
    now = timezone.now()
    delivery = work_due(DELIVERIES, delivery_id, now=now,
                        queryset=Delivery.objects.select_related("postback", "webhook"))
    if delivery is None:
        return None
    if delivery.kind in PLATFORM_KINDS:
        built = platform_request(delivery)
        if built is None:
            return _cancel(delivery, now)
        # Sent by the platforms' JSON client (_platform_send), over the same outbound client.
        request, logged_url, problem = built.request, built.logged_url, built.problem
    else:
        config = delivery.postback if delivery.kind == Kind.POSTBACK else delivery.webhook
        if config is None or (not config.active and not delivery.is_test):
            return _cancel(delivery, now)
        request, problem = _outbound_request(delivery, config, now)
        logged_url = payloads.mask_url(request.url)
    attempt = work_claim(DELIVERIES, delivery, now=now, app_id=delivery.app_id,
                         kind=delivery.kind, http_method=request.method, url=logged_url)
    if attempt is None:
        return None
    if problem is not None:
        outcome = Outcome(error_kind=ErrorKind.INVALID, error=problem)
    elif delivery.kind in PLATFORM_KINDS:
        outcome = _platform_send(delivery.kind, request)
    else:
        # A webhook's plain http (saved where allowed) stays on loopback or private networks.
        outcome = _send(request, plain_http_private_only=delivery.kind == Kind.WEBHOOK)
    attempt_record(DELIVERIES, delivery, attempt, _result(attempt, delivery, outcome),
                   now=timezone.now())
    return attempt


# How the outbound client's failures read in delivery's policy (REFUSED is never retried).
_ERROR_KINDS = {http.Failure.REFUSED: ErrorKind.REFUSED,
                http.Failure.CONNECTION: ErrorKind.CONNECTION,
                http.Failure.TIMEOUT: ErrorKind.TIMEOUT}


def _send(request: http.OutboundRequest, *, plain_http_private_only: bool) -> Outcome:
    """A postback or webhook, through the one outbound client (outbox.http)."""
    answer = http.send(replace(request, headers={"User-Agent": payloads.USER_AGENT,
                                                 **request.headers}),
                       timeout=settings.DELIVERY_TIMEOUT_SECONDS,
                       plain_http_private_only=plain_http_private_only)
    return Outcome(status_code=answer.status_code,
                   response_body=answer.body[:policy.RESPONSE_BODY_LIMIT],
                   error_kind=_ERROR_KINDS[answer.failure] if answer.failure else None,
                   error=answer.error, location=answer.location,
                   duration_ms=answer.duration_ms)


def _platform_send(kind: str, request: http.OutboundRequest) -> Outcome:
    """A conversion to Google Ads or Meta, through the platforms' one JSON client."""
    reply = post_json(request.url, request.body or b"", platform=Kind(kind).label,
                      timeout=settings.DELIVERY_TIMEOUT_SECONDS,
                      body_limit=policy.RESPONSE_BODY_LIMIT,
                      headers={"User-Agent": payloads.USER_AGENT, **request.headers})
    return Outcome(status_code=reply.status_code, response_body=reply.body,
                   error_kind=ErrorKind.CONNECTION if reply.error is not None else None,
                   error=reply.error, duration_ms=reply.duration_ms)


def _cancel(delivery: Delivery, now: datetime) -> None:
    Delivery.objects.filter(id=delivery.id, state=State.PENDING).update(
        state=State.CANCELLED, next_attempt_at=None, completed_at=now, updated_at=now)


def _result(attempt: DeliveryAttempt, delivery: Delivery, outcome: Outcome) -> Result:
    verdict = policy.judge(outcome)
    if delivery.kind in PLATFORM_KINDS and classify(outcome.status_code) == ReplyClass.REFUSED:
        # A platform's 4xx refuses the request as sent (a bad token, link id or parameter):
        # retrying changes nothing.
        verdict = replace(verdict, permanent=True)
    decision = policy.decide(verdict=verdict, attempt_number=attempt.number,
                             max_attempts=delivery.max_attempts,
                             delays=settings.DELIVERY_RETRY_DELAYS, jitter=random.random())
    final = State.SUCCEEDED if decision.state == "succeeded" else State.FAILED
    return Result(state=final, retry_in=decision.retry_in, attempt={
        "status_code": outcome.status_code, "response_body": outcome.response_body,
        "error_message": verdict.error_message or "", "succeeded": verdict.succeeded,
        "duration_ms": outcome.duration_ms})


def _outbound_request(delivery: Delivery, config: PostbackConfig | Webhook, now: datetime
                      ) -> tuple[http.OutboundRequest, str | None]:
    """The request to send, built from the frozen facts (the delivery's body) and the
    configuration as it is now (so a corrected URL applies to pending retries)."""
    if isinstance(config, PostbackConfig):
        values = json.loads(delivery.body)
        url = payloads.render_url(config.postback_url, values)
        problem = policy.url_problem(url, schemes=("http", "https"))
        if problem is None and _authority(url) != _authority(config.postback_url):
            problem = "Filling in the macros changed the host; refused."
        if config.http_method == HttpMethod.POST:
            return http.OutboundRequest(
                "POST", url, {"Content-Type": "application/json"},
                delivery.body.encode()), problem
        return http.OutboundRequest("GET", url), problem
    body = delivery.body.encode()
    try:
        secret = secret_decrypt(config.secret_encrypted, purpose=WEBHOOK_SIGNING)
    except SecretUnreadable as exc:
        return http.OutboundRequest("POST", config.url, body=body), str(exc)
    headers = payloads.webhook_headers(secret=secret, message_id=str(delivery.id),
                                       timestamp=int(now.timestamp()), body=body)
    return http.OutboundRequest("POST", config.url, headers, body), None


def _authority(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port
