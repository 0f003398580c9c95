"""Status callbacks (OpenDSR 8.6): on completion and on cancellation each callback URL gets a
signed POST through the outbox, to real local receivers (plain HTTP and HTTPS); the receiver
verifies it with the secret the 201 gave."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from django.utils import timezone

from accounts.models import User
from delivery.payloads import standard_signature
from privacy import services
from privacy.models import CallbackState, StatusCallback, SubjectRequest
from tests.delivery.receivers import Reply
from tests.privacy.helpers import opendsr_body

pytestmark = pytest.mark.django_db


def file(owner_api, app, urls, **overrides):
    body = opendsr_body(app, status_callback_urls=urls, **overrides)
    response = owner_api.post("/api/v1/privacy/requests", body, format="json")
    assert response.status_code == 201, response.content
    return body, response.json()["data"]["callback_secret"]


def send_all():
    for callback_id in StatusCallback.objects.values_list("id", flat=True):
        services.callback_attempt(callback_id=callback_id)


def verified(received, secret: str) -> dict:
    """What a controller does: pick the secret by the request id header, check the signature
    over the raw body, and only then parse it."""
    expected = "sha256=" + hmac.new(secret.encode(), received.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(received.headers["X-Signature"], expected)
    assert received.headers["webhook-signature"] == standard_signature(
        secret, message_id=received.headers["webhook-id"],
        timestamp=int(received.headers["webhook-timestamp"]), body=received.body)
    return json.loads(received.body)


def test_a_completed_request_calls_back_signed(owner_api, app, receiver_factory, trusted_ca):
    plain, tls = receiver_factory(), receiver_factory(tls=True)
    urls = [plain.url("/dsr/callback"), tls.url("/dsr/callback", host="localhost")]
    body, secret = file(owner_api, app, urls)
    assert secret.startswith("whsec_")
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    for receiver, url in zip((plain, tls), urls, strict=True):
        [received] = receiver.wait_for(1)
        assert received.method == "POST"
        assert received.headers["X-OpenDSR-Subject-Request-Id"] == body["subject_request_id"]
        assert received.headers["X-OpenDSR-Processor-Domain"] == "testserver"
        payload = verified(received, secret)
        assert payload["subject_request_id"] == body["subject_request_id"]
        assert payload["request_status"] == "completed"
        assert payload["status_callback_url"] == url
        assert payload["controller_id"] == str(app.organization_id)
        assert payload["results_count"] == 0 and "expected_completion_time" in payload
    assert set(StatusCallback.objects.values_list("state", flat=True)) == {
        CallbackState.SUCCEEDED}


def test_a_forged_body_fails_the_check(owner_api, app, receiver_factory):
    receiver = receiver_factory()
    body, secret = file(owner_api, app, [receiver.url("/cb")])
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    [received] = receiver.wait_for(1)
    received.body = received.body.replace(b"completed", b"cancelled")
    with pytest.raises(AssertionError):
        verified(received, secret)


def test_a_cancelled_request_calls_back_too(owner_api, app, receiver_factory):
    receiver = receiver_factory()
    body, secret = file(owner_api, app, [receiver.url("/cb")])
    assert owner_api.delete(
        f"/api/v1/privacy/requests/{body['subject_request_id']}").status_code == 202
    send_all()
    [received] = receiver.wait_for(1)
    payload = verified(received, secret)
    assert payload["request_status"] == "cancelled" and "results_count" not in payload


def test_a_failed_callback_is_retried_under_the_same_id(owner_api, app, receiver_factory):
    receiver = receiver_factory(Reply(status=503), Reply(status=200))
    body, secret = file(owner_api, app, [receiver.url("/cb")])
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    callback = StatusCallback.objects.get()
    assert callback.state == CallbackState.PENDING and callback.next_attempt_at > timezone.now()
    StatusCallback.objects.update(next_attempt_at=timezone.now())
    send_all()
    first, second = receiver.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(callback.id)
    assert first.body == second.body
    callback.refresh_from_db()
    assert callback.state == CallbackState.SUCCEEDED and callback.attempts.count() == 2


def test_the_secret_is_not_stored_in_the_clear(owner_api, app, receiver_factory):
    receiver = receiver_factory()
    body, secret = file(owner_api, app, [receiver.url("/cb")])
    stored = SubjectRequest.objects.get(id=body["subject_request_id"])
    assert secret not in stored.callback_secret_encrypted
    assert base64.b64decode(secret.removeprefix("whsec_"))


def test_the_admin_shows_a_request_and_its_callbacks_without_the_identity(
        owner_api, app, receiver_factory, client):
    receiver = receiver_factory()
    body, secret = file(owner_api, app, [receiver.url("/cb")])
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    client.force_login(User.objects.create_superuser("ops@example.com", "operator-password"))
    request_page = client.get(f"/admin/privacy/subjectrequest/{body['subject_request_id']}/"
                              "change/").content.decode()
    callback = StatusCallback.objects.get()
    callback_page = client.get(f"/admin/privacy/statuscallback/{callback.id}/change/")
    assert callback_page.status_code == 200 and "succeeded" in callback_page.content.decode()
    assert SubjectRequest.objects.get().identity_hash in request_page
    assert "3f1c2a9e" not in request_page and secret not in request_page
