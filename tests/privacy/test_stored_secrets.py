"""A privacy request's callback secret at rest (attribution_site/secrets.py): one stored by the
code before purposes still signs the callbacks, and one that no longer decrypts fails them at
once, in words that name the callback secret and no other app's."""

from __future__ import annotations

import pytest

from delivery.payloads import standard_signature
from privacy import services
from privacy.models import CallbackState, StatusCallback, SubjectRequest
from tests.legacy_secrets import FOREIGN_KEY, legacy_token
from tests.privacy.helpers import opendsr_body

pytestmark = pytest.mark.django_db


def filed_with(owner_api, app, url: str, token_of) -> tuple[str, str]:
    """A request filed through the API, its stored secret then replaced by `token_of(secret)`."""
    body = opendsr_body(app, status_callback_urls=[url])
    response = owner_api.post("/api/v1/privacy/requests", body, format="json")
    assert response.status_code == 201, response.content
    secret = response.json()["data"]["callback_secret"]
    SubjectRequest.objects.filter(id=body["subject_request_id"]).update(
        callback_secret_encrypted=token_of(secret))
    services.request_run(request_id=body["subject_request_id"])
    for callback_id in StatusCallback.objects.values_list("id", flat=True):
        services.callback_attempt(callback_id=callback_id)
    return body["subject_request_id"], secret


def test_a_secret_stored_before_purposes_still_signs_the_callbacks(owner_api, app,
                                                                   receiver_factory):
    receiver = receiver_factory()
    _request_id, secret = filed_with(owner_api, app, receiver.url("/cb"), legacy_token)
    [received] = receiver.wait_for(1)
    assert received.headers["webhook-signature"] == standard_signature(
        secret, message_id=received.headers["webhook-id"],
        timestamp=int(received.headers["webhook-timestamp"]), body=received.body)
    assert StatusCallback.objects.get().state == CallbackState.SUCCEEDED


def test_a_secret_that_no_longer_decrypts_fails_the_callback_in_words(owner_api, app,
                                                                       receiver_factory):
    receiver = receiver_factory()
    filed_with(owner_api, app, receiver.url("/cb"),
               lambda secret: legacy_token(secret, key=FOREIGN_KEY))
    callback = StatusCallback.objects.get()
    assert callback.state == CallbackState.FAILED
    [attempt] = callback.attempts.all()
    assert attempt.error_message.startswith(
        "A stored secret cannot be decrypted: a privacy request's callback signing secret")
    assert "webhook" not in attempt.error_message.lower()
    assert receiver.requests == []
