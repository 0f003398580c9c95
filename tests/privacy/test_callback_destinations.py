"""Status callbacks go through the one outbound client (outbox.http): a callback URL on a private
network is refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS allows it, a host that answers a
public address and then a private one is never connected to at the second answer, and plain http
goes to loopback or private addresses only, checked again at send."""

from __future__ import annotations

import pytest

from privacy import services
from privacy.models import CallbackState, StatusCallback
from tests.outbound import PUBLIC, Network
from tests.privacy.test_callbacks import file, send_all

pytestmark = pytest.mark.django_db

NAME = "dsr.controller.example"


def test_a_callback_to_a_private_address_is_refused_without_the_setting(
        owner_api, app, receiver_factory, settings):
    receiver = receiver_factory()
    body, _secret = file(owner_api, app, [receiver.url("/cb")])
    services.request_run(request_id=body["subject_request_id"])
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    send_all()
    callback = StatusCallback.objects.get()
    assert callback.state == CallbackState.FAILED  # refused: never retried
    [attempt] = callback.attempts.all()
    assert attempt.error_message == "Refused: 127.0.0.1 is a loopback address."
    assert attempt.status_code is None
    assert receiver.requests == []


def test_a_callback_to_a_private_address_is_sent_with_the_setting(
        owner_api, app, receiver_factory):
    receiver = receiver_factory()  # allows private destinations, as an operator would
    body, _secret = file(owner_api, app, [receiver.url("/cb")])
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    assert StatusCallback.objects.get().state == CallbackState.SUCCEEDED
    assert len(receiver.wait_for(1)) == 1


def test_a_callback_host_answering_public_then_private_is_never_reached(
        owner_api, app, receiver_factory, settings, monkeypatch):
    receiver = receiver_factory()
    # https: a plain-http callback may only go to loopback or private addresses, so its first,
    # public answer would be refused before any connection (tests/privacy/test_requests_api.py).
    body, _secret = file(owner_api, app, [f"https://{NAME}:{receiver.port}/cb"])
    services.request_run(request_id=body["subject_request_id"])
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    network = Network(monkeypatch, {NAME: [PUBLIC, "127.0.0.1"]})
    send_all()
    [attempt] = StatusCallback.objects.get().attempts.all()
    assert attempt.error_message == "Connection refused."
    assert network.lookups == [NAME]
    assert network.connected == [(PUBLIC, receiver.port)]
    assert receiver.requests == []


def test_a_plain_http_callback_whose_name_now_answers_public_is_refused_at_send(
        owner_api, app, receiver_factory, monkeypatch):
    """Private receivers allowed: the name was private when the request was filed, and its
    answer changed since; plain http never goes to a public address, whatever the setting."""
    receiver = receiver_factory()
    network = Network(monkeypatch, {NAME: ["127.0.0.1", PUBLIC]})
    body, _secret = file(owner_api, app, [receiver.url("/cb", host=NAME)])
    services.request_run(request_id=body["subject_request_id"])
    send_all()
    callback = StatusCallback.objects.get()
    assert callback.state == CallbackState.FAILED  # refused: never retried
    [attempt] = callback.attempts.all()
    assert attempt.error_message == (
        f"Refused: {NAME} resolves to {PUBLIC}, a public address; plain http is only for a "
        "receiver on loopback or a private network. Use an https URL.")
    assert attempt.status_code is None
    assert network.lookups == [NAME, NAME] and network.connected == []
    assert receiver.requests == []
