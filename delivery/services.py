"""Delivery writes (spec: Postback endpoints, Webhook endpoints, Events): configurations; the
delivery rows created inside the transaction of the install, re-engagement or event batch that
caused them; and the claim -> send -> record cycle that workers, test endpoints and the admin's
redeliver action all go through.

The rules of the cycle: a delivery is a row before it is a Celery message; a worker claims it
with a conditional UPDATE, so a duplicated message sends nothing twice; the network call happens
outside any transaction; every try is an attempt row; the beat sweep re-enqueues deliveries
whose message was lost and takes back those whose worker died. See docs/delivery.md.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from apps_registry.models import App
from attribution_site.api.exceptions import Conflict, NotFound, ValidationFailed
from attribution_site.write_batch import WriteBatch
from delivery import crypto, enqueue, payloads, policy, selectors, transport
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

logger = logging.getLogger(__name__)

UPDATABLE_POSTBACK_FIELDS = ("media_source", "postback_url", "http_method", "events", "active")
UPDATABLE_WEBHOOK_FIELDS = ("url", "events", "active")
MAX_WEBHOOKS_PER_APP = 20
# Per sweep (a minute): 5,000 re-enqueued deliveries is 300,000 an hour after an outage.
SWEEP_BATCH = 5000
DISPATCH_CHUNK = 100
PRUNE_BATCH = 5000
PRUNE_MAX_BATCHES = 20
SECRET_MESSAGE = ("Store this secret now: it is shown only once. Use it to verify the "
                  "X-Signature (or webhook-signature) header of every delivery.")
INTERRUPTED = ("Interrupted: the worker stopped before the answer was recorded; "
               "the delivery was handed to another worker.")


# --- Configurations ----------------------------------------------------------------------------

def _check_destination(url: str, *, field: str) -> None:
    """Save-time address check; the same check runs again before every send."""
    reason = transport.destination_refusal(
        url, allow_private=settings.DELIVERY_ALLOW_PRIVATE_NETWORKS)
    if reason is not None:
        raise ValidationFailed(f"Invalid input: {field}.", {field: [reason]})


def _media_source_conflict(media_source: str) -> Conflict:
    message = f"A postback for media source {media_source!r} already exists for this app."
    return Conflict(message, {"media_source": [message]})


def postback_create(*, app: App, media_source: str, postback_url: str,
                    http_method: str = HttpMethod.GET, events: Sequence[str] | None = None,
                    active: bool = True) -> PostbackConfig:
    _check_destination(postback_url, field="postback_url")
    if PostbackConfig.objects.filter(app=app, media_source=media_source).exists():
        raise _media_source_conflict(media_source)
    now = timezone.now()
    postback = PostbackConfig(app=app, media_source=media_source, postback_url=postback_url,
                              http_method=http_method, events=list(events or [payloads.INSTALL]),
                              active=active, created_at=now, updated_at=now)
    try:
        with transaction.atomic():
            postback.save(force_insert=True)
            selectors.delivery_targets_changed(app_id=app.id)
    except IntegrityError:  # a concurrent create for the same media source won the race
        raise _media_source_conflict(media_source) from None
    return postback


def postback_update(*, postback: PostbackConfig, changes: dict[str, Any]) -> PostbackConfig:
    for name in changes:
        if name not in UPDATABLE_POSTBACK_FIELDS:
            raise ValueError(f"{name} is not updatable")
    if "postback_url" in changes:
        _check_destination(changes["postback_url"], field="postback_url")
    source = changes.get("media_source")
    if source is not None and source != postback.media_source and PostbackConfig.objects.filter(
            app_id=postback.app_id, media_source=source).exists():
        raise _media_source_conflict(source)
    if not changes:
        return postback
    for name, value in changes.items():
        setattr(postback, name, value)
    postback.updated_at = timezone.now()
    try:
        with transaction.atomic():
            postback.save(update_fields=[*changes, "updated_at"])
            selectors.delivery_targets_changed(app_id=postback.app_id)
    except IntegrityError:
        raise _media_source_conflict(postback.media_source) from None
    return postback


def postback_delete(*, postback: PostbackConfig) -> None:
    """Its open deliveries are cancelled when their turn comes; its log is kept."""
    with transaction.atomic():
        postback.delete()
        selectors.delivery_targets_changed(app_id=postback.app_id)


def webhook_create(*, app: App, url: str, events: Sequence[str]) -> tuple[Webhook, str]:
    """The webhook and its signing secret, which is never available again."""
    _check_destination(url, field="url")
    if Webhook.objects.filter(app=app).count() >= MAX_WEBHOOKS_PER_APP:
        message = f"An app can have at most {MAX_WEBHOOKS_PER_APP} webhooks."
        raise ValidationFailed(message, {"non_field_errors": [message]})
    secret = crypto.secret_generate()
    now = timezone.now()
    with transaction.atomic():
        webhook = Webhook.objects.create(app=app, url=url, events=list(events), active=True,
                                         secret_encrypted=crypto.secret_encrypt(secret),
                                         created_at=now, updated_at=now)
        selectors.delivery_targets_changed(app_id=app.id)
    return webhook, secret


def webhook_update(*, webhook: Webhook, changes: dict[str, Any]) -> Webhook:
    for name in changes:
        if name not in UPDATABLE_WEBHOOK_FIELDS:
            raise ValueError(f"{name} is not updatable")
    if "url" in changes:
        _check_destination(changes["url"], field="url")
    if changes:
        for name, value in changes.items():
            setattr(webhook, name, value)
        webhook.updated_at = timezone.now()
        with transaction.atomic():
            webhook.save(update_fields=[*changes, "updated_at"])
            selectors.delivery_targets_changed(app_id=webhook.app_id)
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    with transaction.atomic():
        webhook.delete()
        selectors.delivery_targets_changed(app_id=webhook.app_id)


# --- Deliveries created with the facts (in-transaction domain event handlers) ----------------

def deliveries_for_installs(events: Sequence[Any], batch: WriteBatch) -> None:
    """InstallAttributed: webhooks for every install (organic too), postbacks for attributed
    installs to the configuration of the install's media source."""
    _deliveries_create(events, batch, payloads.install_fact)


def deliveries_for_reengagements(events: Sequence[Any], batch: WriteBatch) -> None:
    _deliveries_create(events, batch, payloads.reengagement_fact)


def deliveries_for_events(events: Sequence[Any], batch: WriteBatch) -> None:
    _deliveries_create(events, batch, payloads.event_fact)


def _deliveries_create(events: Sequence[Any], batch: WriteBatch,
                       to_fact: Callable[[Any], payloads.Fact]) -> None:
    """Adds the delivery rows to the batch that records the facts, and one Celery message for
    the whole publication after commit. The targets come from a per-process cache, so an app
    with nothing configured costs nothing here."""
    targets = selectors.delivery_targets(app_ids={event.app_id for event in events})
    if not targets:
        return
    by_app: dict[uuid.UUID, list[selectors.Target]] = defaultdict(list)
    for target in targets:
        by_app[target.app_id].append(target)
    now = timezone.now()
    attempts = policy.max_attempts(settings.DELIVERY_RETRY_DELAYS)
    timestamp_ms = payloads.unix_ms(now)
    rows: list[Delivery] = []
    for event in events:
        app_targets = by_app.get(event.app_id)
        if not app_targets:
            continue
        fact = to_fact(event)
        postback_body = None
        for target in app_targets:
            if fact.event_type not in target.events:
                continue
            delivery_id = uuid.uuid4()
            if target.kind == Kind.POSTBACK:
                # Postbacks credit a network: never for organic facts, only to the source.
                if fact.is_organic or fact.media_source != target.media_source:
                    continue
                postback_body = postback_body or payloads.postback_body(fact.values)
                body = postback_body
            else:
                body = payloads.webhook_body(message_id=str(delivery_id),
                                             event_type=fact.event_type,
                                             timestamp_ms=timestamp_ms, data=fact.data)
            rows.append(Delivery(
                id=delivery_id, app_id=event.app_id, kind=target.kind,
                postback_id=target.config_id if target.kind == Kind.POSTBACK else None,
                webhook_id=target.config_id if target.kind == Kind.WEBHOOK else None,
                event_type=fact.event_type, source_id=fact.source_id, body=body,
                max_attempts=attempts, next_attempt_at=now, created_at=now, updated_at=now))
    if not rows:
        return
    # A fact published twice must not be delivered twice: the partial unique constraints
    # drop the duplicates, and their ids simply find nothing to claim.
    batch.insert(rows, ignore_conflicts=True)
    delivery_ids = [str(row.id) for row in rows]
    batch.after_commit(lambda: enqueue.deliveries_enqueue(delivery_ids))


# --- Claim, send, record -----------------------------------------------------------------------

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


# --- Sweep, redeliver, prune ------------------------------------------------------------------

def sweep_grace_seconds() -> int:
    """How long past due a pending delivery may wait for its message before it is presumed
    lost. Without a broker nothing else sends retries, so then there is no grace at all."""
    return 0 if enqueue.runs_in_process() else settings.DELIVERY_SWEEP_GRACE_SECONDS


def deliveries_sweep(*, now: datetime, grace_seconds: int) -> list[str]:
    """Take back deliveries whose worker died mid-send (lease expired) and re-enqueue pending
    ones whose message was lost (due for longer than the grace). Returns the ids enqueued."""
    requeued: list[str] = []
    with transaction.atomic():
        stuck = list(Delivery.objects.select_for_update(skip_locked=True).filter(
            state=State.SENDING, lease_expires_at__lte=now,
        ).order_by("lease_expires_at")[:SWEEP_BATCH])
        for delivery in stuck:
            DeliveryAttempt.objects.filter(delivery_id=delivery.id, finished_at__isnull=True
                                           ).update(finished_at=now, succeeded=False,
                                                    error_message=INTERRUPTED)
            exhausted = delivery.attempts_made >= delivery.max_attempts
            Delivery.objects.filter(id=delivery.id, state=State.SENDING).update(
                state=State.FAILED if exhausted else State.PENDING,
                next_attempt_at=None if exhausted else now, lease_expires_at=None,
                completed_at=now if exhausted else None, updated_at=now)
            if not exhausted:
                requeued.append(str(delivery.id))
    cutoff = now - timedelta(seconds=grace_seconds)
    with transaction.atomic():
        # A pending delivery's updated_at is never later than its due time, except after a
        # re-enqueue here: it marks the re-enqueue, so the delivery is sent again only after
        # another grace period (one message per period, not per sweep), while next_attempt_at
        # keeps the real due time and a delivery nobody sends stays overdue for all to see.
        due = [str(pk) for pk in Delivery.objects.select_for_update(skip_locked=True).filter(
            state=State.PENDING, next_attempt_at__lte=cutoff, updated_at__lte=cutoff,
        ).order_by("next_attempt_at").values_list("id", flat=True)[:SWEEP_BATCH]]
        Delivery.objects.filter(id__in=due, state=State.PENDING).update(updated_at=now)
    delivery_ids = list(dict.fromkeys(requeued + due))
    for start in range(0, len(delivery_ids), DISPATCH_CHUNK):
        enqueue.deliveries_enqueue(delivery_ids[start:start + DISPATCH_CHUNK])
    if delivery_ids:
        logger.info("sweep re-enqueued %d deliveries (%d taken back from lost workers)",
                    len(delivery_ids), len(requeued))
    return delivery_ids


def deliveries_redeliver(*, delivery_ids: Sequence[uuid.UUID | str]) -> int:
    """Give failed deliveries one more attempt each, sent by the workers like any other."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(Delivery.objects.filter(id__in=list(delivery_ids), state=State.FAILED)
                   .values_list("id", flat=True))
        Delivery.objects.filter(id__in=ids, state=State.FAILED).update(
            state=State.PENDING, max_attempts=F("attempts_made") + 1, next_attempt_at=now,
            completed_at=None, updated_at=now)
        queued = [str(pk) for pk in ids]
        transaction.on_commit(lambda: enqueue.deliveries_enqueue(queued))
    return len(ids)


def deliveries_prune(*, now: datetime, retention_days: int) -> int:
    """Delete finished deliveries (and their attempts) older than the retention, in batches so
    no single statement holds locks for long."""
    cutoff = now - timedelta(days=retention_days)
    deleted = 0
    for _ in range(PRUNE_MAX_BATCHES):
        ids = list(Delivery.objects.filter(completed_at__lt=cutoff)
                   .values_list("id", flat=True)[:PRUNE_BATCH])
        if ids:
            Delivery.objects.filter(id__in=ids).delete()
        deleted += len(ids)
        if len(ids) < PRUNE_BATCH:
            break
    return deleted


# --- Test sends ----------------------------------------------------------------------------------

def postback_test(*, postback: PostbackConfig) -> DeliveryAttempt:
    """Send a sample postback now (even if the configuration is inactive) and log it."""
    event_type = payloads.INSTALL if payloads.INSTALL in postback.events else postback.events[0]
    now = timezone.now()
    fact = payloads.sample_fact(event_type=event_type, app_id=str(postback.app_id),
                                media_source=postback.media_source,
                                platform=postback.app.platform, now=now)
    return _test_send(kind=Kind.POSTBACK, config=postback, event_type=event_type,
                      body=payloads.postback_body(fact.values), now=now)


def webhook_test(*, webhook: Webhook) -> DeliveryAttempt:
    """Send a sample payload now, marked `"test": true`, and log it."""
    event_type = payloads.INSTALL if payloads.INSTALL in webhook.events else webhook.events[0]
    now = timezone.now()
    fact = payloads.sample_fact(event_type=event_type, app_id=str(webhook.app_id),
                                media_source=None, platform=webhook.app.platform, now=now)
    delivery_id = uuid.uuid4()
    body = payloads.webhook_body(message_id=str(delivery_id), event_type=event_type,
                                 timestamp_ms=payloads.unix_ms(now), data=fact.data, test=True)
    return _test_send(kind=Kind.WEBHOOK, config=webhook, event_type=event_type, body=body,
                      now=now, delivery_id=delivery_id)


def _test_send(*, kind: str, config: PostbackConfig | Webhook, event_type: str, body: str,
               now: datetime, delivery_id: uuid.UUID | None = None) -> DeliveryAttempt:
    delivery = Delivery.objects.create(
        id=delivery_id or uuid.uuid4(), app_id=config.app_id, kind=kind,
        postback=config if kind == Kind.POSTBACK else None,
        webhook=config if kind == Kind.WEBHOOK else None,
        event_type=event_type, is_test=True, body=body, max_attempts=1,
        next_attempt_at=now, created_at=now, updated_at=now)
    attempt = delivery_attempt(delivery_id=delivery.id)
    if attempt is None:  # nobody else knows this row; only a deleted configuration gets here
        raise NotFound("The configuration was deleted while the test was being sent.")
    return attempt
