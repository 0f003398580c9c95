"""A webhook's signing secret at rest (attribution_site/secrets.py): one stored by the code
before purposes still signs, and one that no longer decrypts fails its delivery at once, in
words that say why, instead of sending an unsigned request."""

from __future__ import annotations

import pytest
from standardwebhooks import Webhook as StandardWebhook

from delivery import payloads
from delivery.models import Delivery, State, Webhook
from tests.delivery.helpers import attempt_all, install_event, publish
from tests.legacy_secrets import FOREIGN_KEY, legacy_token

pytestmark = pytest.mark.django_db


def webhook_with(app, url: str, token: str) -> Webhook:
    return Webhook.objects.create(app=app, url=url, events=["install"], active=True,
                                  secret_encrypted=token)


def test_a_secret_stored_before_purposes_still_signs_its_deliveries(app, tls_receiver):
    secret = payloads.secret_generate()
    webhook_with(app, tls_receiver.url("/hook"), legacy_token(secret))
    publish(install_event(app))
    [attempt] = attempt_all()
    [request] = tls_receiver.requests
    assert attempt.succeeded
    StandardWebhook(secret).verify(request.body, request.headers)


def test_a_secret_that_no_longer_decrypts_fails_the_delivery_in_words(app, tls_receiver):
    webhook_with(app, tls_receiver.url("/hook"),
                 legacy_token(payloads.secret_generate(), key=FOREIGN_KEY))
    publish(install_event(app))
    [attempt] = attempt_all()
    assert attempt.succeeded is False and attempt.status_code is None
    assert attempt.error_message.startswith(
        "A stored secret cannot be decrypted: a webhook's signing secret was encrypted")
    assert tls_receiver.requests == []
    delivery = Delivery.objects.get()
    assert delivery.state == State.FAILED and delivery.attempts_made == 1
