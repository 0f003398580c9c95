"""A request's run as an outbox kind (privacy/services.py, privacy.enqueue.RUNS): a run whose
eraser raises rolls back whole, is retried on privacy.policy's schedule with its error in words
in the API, then fails, and its controller's callback says so; a run one worker holds is not run
by another, not even once its lease has run out while that worker is still at it."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from accounts.models import User
from outbox.sweep import kind_sweep
from privacy import erasure, policy, services
from privacy.enqueue import RUNS
from privacy.models import (
    RequestRun,
    RequestRunAttempt,
    RequestStatus,
    RunState,
    StatusCallback,
    SubjectRequest,
)
from tests.privacy.helpers import GAID, install, opendsr_body
from tests.privacy.test_callbacks import send_all, verified
from tracking.models import Install

URL = "/api/v1/privacy/requests"
# A database error's shape: the first line says what, the DETAIL line quotes row values.
LOCKED = ('canceling statement due to lock timeout\n'
          f'DETAIL:  Key (device_id)=({GAID}) is locked by another transaction.')


class LockTimeout(Exception):
    pass


@pytest.fixture
def failing_eraser(monkeypatch):
    """Every app's eraser as shipped, and one more whose table is locked: it raises after the
    others have erased, so only a rollback keeps their work from counting."""
    calls = []

    def locked(app_id, *, install_ids, device_ids):
        calls.append(app_id)
        raise LockTimeout(LOCKED)

    monkeypatch.setattr(erasure, "ERASERS", (*erasure.ERASERS, locked))
    return calls


def file(owner_api, app, **overrides) -> str:
    body = opendsr_body(app, **overrides)
    response = owner_api.post(URL, body, format="json")
    assert response.status_code == 201, response.content
    return body["subject_request_id"]


def due_now():
    """What the retry's countdown message (or the sweep) does once its delay has passed."""
    RequestRun.objects.filter(state=RunState.PENDING).update(next_attempt_at=timezone.now())


def status_of(owner_api, request_id) -> dict:
    response = owner_api.get(f"{URL}/{request_id}")
    assert response.status_code == 200
    return response.json()["data"]


@pytest.mark.django_db
def test_an_eraser_that_raises_is_retried_then_the_request_fails_and_says_why(
        owner_api, sdk, app, receiver_factory, failing_eraser):
    assert install(sdk, app, GAID).status_code == 201
    receiver = receiver_factory()
    body = opendsr_body(app, status_callback_urls=[receiver.url("/dsr")])
    response = owner_api.post(URL, body, format="json")
    request_id, secret = body["subject_request_id"], response.json()["data"]["callback_secret"]

    assert services.request_run(request_id=request_id) is False
    run = RequestRun.objects.get()
    assert (run.state, run.attempts_made) == (RunState.PENDING, 1)
    assert run.next_attempt_at > timezone.now() + timedelta(seconds=50)  # 60 s, +/- 10 %
    words = "The run stopped with an error: LockTimeout: canceling statement due to lock timeout"
    status = status_of(owner_api, request_id)
    assert status["request_status"] == "in_progress"
    assert (status["attempts_made"], status["last_error"]) == (1, words)
    assert Install.objects.get().device_id == GAID  # rolled back: nothing erased
    assert not StatusCallback.objects.exists()  # nothing to tell the controller yet

    for _ in range(policy.RUN_MAX_ATTEMPTS - 1):
        due_now()
        assert services.request_run(request_id=request_id) is False
    assert len(failing_eraser) == policy.RUN_MAX_ATTEMPTS
    due_now()
    assert services.request_run(request_id=request_id) is False  # no try after the last
    assert len(failing_eraser) == policy.RUN_MAX_ATTEMPTS

    status = status_of(owner_api, request_id)
    assert status["request_status"] == "failed"
    assert status["attempts_made"] == policy.RUN_MAX_ATTEMPTS and status["last_error"] == words
    assert status["completed_time"] is not None and status["results_count"] is None
    assert GAID not in str(status)  # the DETAIL line, which quotes a value, is left out
    stored = SubjectRequest.objects.get()
    assert stored.status == RequestStatus.FAILED and stored.identity_value == ""
    assert Install.objects.get().device_id == GAID
    attempts = list(RequestRunAttempt.objects.order_by("number").values_list(
        "number", "error_message"))
    assert attempts == [(n, words) for n in range(1, policy.RUN_MAX_ATTEMPTS + 1)]

    send_all()
    [received] = receiver.wait_for(1)
    payload = verified(received, secret)
    assert payload["request_status"] == "failed"
    assert payload["subject_request_id"] == request_id and "results_count" not in payload


@pytest.mark.django_db
def test_a_run_that_raised_once_then_succeeds_completes_with_its_error_cleared(
        owner_api, sdk, app, monkeypatch):
    assert install(sdk, app, GAID).status_code == 201
    request_id = file(owner_api, app)
    shipped = erasure.ERASERS

    def once(app_id, *, install_ids, device_ids):
        monkeypatch.setattr(erasure, "ERASERS", shipped)  # the lock is gone by the retry
        raise LockTimeout(LOCKED)

    monkeypatch.setattr(erasure, "ERASERS", (*shipped, once))
    assert services.request_run(request_id=request_id) is False
    due_now()
    assert services.request_run(request_id=request_id) is True
    status = status_of(owner_api, request_id)
    assert status["request_status"] == "completed" and status["found"]["tracking_install"] == 1
    assert (status["attempts_made"], status["last_error"]) == (2, None)
    assert Install.objects.get().device_id is None


@pytest.mark.django_db
def test_a_pending_request_cancelled_is_never_run(owner_api, app):
    request_id = file(owner_api, app)
    assert owner_api.delete(f"{URL}/{request_id}").status_code == 202
    assert RequestRun.objects.get().state == RunState.CANCELLED
    assert services.request_run(request_id=request_id) is False
    assert status_of(owner_api, request_id)["request_status"] == "cancelled"


@pytest.mark.django_db
def test_a_request_being_retried_is_in_progress_and_cannot_be_cancelled(
        owner_api, app, failing_eraser):
    request_id = file(owner_api, app)
    services.request_run(request_id=request_id)
    response = owner_api.delete(f"{URL}/{request_id}")
    assert response.status_code == 409
    assert "in_progress" in response.json()["error"]["message"]
    assert RequestRun.objects.get().state == RunState.PENDING  # still retried


@pytest.mark.django_db
def test_the_sweep_fails_a_request_whose_worker_died_on_its_last_try(owner_api, app,
                                                                     receiver_factory):
    receiver = receiver_factory()
    request_id = file(owner_api, app, status_callback_urls=[receiver.url("/dsr")])
    past = timezone.now() - timedelta(minutes=1)
    # What a worker killed on the last try leaves: claimed, its lease run out, an open attempt.
    RequestRun.objects.update(state=RunState.SENDING, attempts_made=policy.RUN_MAX_ATTEMPTS,
                              lease_expires_at=past)
    SubjectRequest.objects.update(status=RequestStatus.IN_PROGRESS)
    RequestRunAttempt.objects.create(run_id=request_id, number=policy.RUN_MAX_ATTEMPTS,
                                     started_at=past)
    assert kind_sweep(RUNS, now=timezone.now()) == []
    status = status_of(owner_api, request_id)
    assert status["request_status"] == "failed"
    assert status["last_error"] == "Given up: the worker stopped mid-run once too often."
    assert StatusCallback.objects.get().body.count('"request_status":"failed"') == 1


@pytest.mark.django_db
def test_a_duplicate_message_while_a_worker_holds_the_run_runs_nothing(
        owner_api, sdk, app, monkeypatch):
    assert install(sdk, app, GAID).status_code == 201
    request_id = file(owner_api, app)
    second_worker = []

    def meanwhile(app_id, *, install_ids, device_ids):
        second_worker.append(services.request_run(request_id=request_id))
        return {}

    monkeypatch.setattr(erasure, "ERASERS", (*erasure.ERASERS, meanwhile))
    assert services.request_run(request_id=request_id) is True
    assert second_worker == [False]
    assert RequestRunAttempt.objects.count() == 1
    assert RequestRun.objects.get().attempts_made == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_run_past_its_lease_is_not_taken_from_the_worker_still_at_it(
        owner_api, sdk, app, monkeypatch):
    """Two connections, as two workers and beat have: the first worker's run outlives its
    lease; the sweep leaves it alone and a second worker's message runs nothing."""
    assert install(sdk, app, GAID).status_code == 201
    request_id = file(owner_api, app)
    inside, release = threading.Event(), threading.Event()

    def slow(app_id, *, install_ids, device_ids):
        inside.set()
        assert release.wait(30)
        return {}

    monkeypatch.setattr(erasure, "ERASERS", (*erasure.ERASERS, slow))
    results = []

    def first_worker():
        try:
            results.append(services.request_run(request_id=request_id))
        finally:
            connections.close_all()

    worker = threading.Thread(target=first_worker)
    worker.start()
    try:
        assert inside.wait(30)
        past_the_lease = timezone.now() + timedelta(
            seconds=2 * RUNS.timeout_seconds() + 60)
        assert kind_sweep(RUNS, now=past_the_lease) == []
        assert services.request_run(request_id=request_id, now=past_the_lease) is False
        assert RequestRun.objects.get().state == RunState.SENDING
    finally:
        release.set()
        worker.join(30)
    assert results == [True]
    run = RequestRun.objects.get()
    assert (run.state, run.attempts_made) == (RunState.SUCCEEDED, 1)
    assert RequestRunAttempt.objects.count() == 1
    assert SubjectRequest.objects.get().status == RequestStatus.COMPLETED
    assert Install.objects.get().device_id is None


@pytest.mark.django_db
def test_the_admin_shows_a_runs_tries_and_their_errors(owner_api, app, client, failing_eraser):
    request_id = file(owner_api, app)
    services.request_run(request_id=request_id)
    client.force_login(User.objects.create_superuser("ops@example.com", "operator-password"))
    request_page = client.get(f"/admin/privacy/subjectrequest/{request_id}/change/")
    run_page = client.get(f"/admin/privacy/requestrun/{request_id}/change/")
    assert request_page.status_code == run_page.status_code == 200
    for page in (request_page, run_page):
        assert "LockTimeout: canceling statement due to lock timeout" in page.content.decode()
