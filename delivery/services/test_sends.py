"""The test endpoints' sends (spec: Postback endpoints, Webhook endpoints, "test"): a sample of
the configuration's first subscribed event type, sent at once in the request through the same
claim -> send -> record cycle as any delivery (an inactive configuration too), attempted once,
never retried, and logged with `is_test`.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.utils import timezone

from attribution_site.api.exceptions import NotFound
from delivery import payloads
from delivery.models import Delivery, DeliveryAttempt, Kind, PostbackConfig, Webhook
from delivery.services.sending import delivery_attempt


def postback_test(*, postback: PostbackConfig) -> DeliveryAttempt:
    """Send a sample postback now (even if the configuration is inactive) and log it."""
    event_type = _sample_event_type(postback)
    now = timezone.now()
    fact = payloads.sample_fact(event_type=event_type, app_id=str(postback.app_id),
                                media_source=postback.media_source,
                                platform=postback.app.platform, now=now)
    return _test_send(kind=Kind.POSTBACK, config=postback, event_type=event_type,
                      body=payloads.postback_body(fact.values), now=now)


def webhook_test(*, webhook: Webhook) -> DeliveryAttempt:
    """Send a sample payload now, marked `"test": true`, and log it."""
    event_type = _sample_event_type(webhook)
    now = timezone.now()
    fact = payloads.sample_fact(event_type=event_type, app_id=str(webhook.app_id),
                                media_source=None, platform=webhook.app.platform, now=now)
    delivery_id = uuid.uuid4()
    body = payloads.webhook_body(message_id=str(delivery_id), event_type=event_type,
                                 timestamp_ms=payloads.unix_ms(now), data=fact.data, test=True)
    return _test_send(kind=Kind.WEBHOOK, config=webhook, event_type=event_type, body=body,
                      now=now, delivery_id=delivery_id)


def _sample_event_type(config: PostbackConfig | Webhook) -> str:
    """An install when the configuration takes installs, else the first type it takes."""
    return payloads.INSTALL if payloads.INSTALL in config.events else config.events[0]


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
