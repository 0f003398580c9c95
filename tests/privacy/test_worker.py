"""The README's plain worker, in a process of its own on this test's database and the real
Redis broker: a filed erasure runs once its request commits, and its signed callback reaches
a local receiver."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from privacy.models import RequestStatus, SubjectRequest
from tests.delivery.helpers import wait_until
from tests.privacy.helpers import GAID, install, opendsr_body
from tracking.models import Install

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_plain_worker_runs_an_erasure_and_calls_back(owner_api, sdk, app, receiver_factory,
                                                        readme_process):
    readme_process("worker", ready=" ready.")
    assert install(sdk, app, GAID).status_code == 201
    receiver = receiver_factory()
    body = opendsr_body(app, status_callback_urls=[receiver.url("/cb")])
    response = owner_api.post("/api/v1/privacy/requests", body, format="json")
    assert response.status_code == 201
    secret = response.json()["data"]["callback_secret"]
    [received] = receiver.wait_for(1, timeout=30)
    expected = "sha256=" + hmac.new(secret.encode(), received.body, hashlib.sha256).hexdigest()
    assert received.headers["X-Signature"] == expected
    assert json.loads(received.body)["request_status"] == "completed"
    wait_until(lambda: SubjectRequest.objects.get().status == RequestStatus.COMPLETED)
    assert not Install.objects.filter(device_id=GAID).exists()
