"""Helpers shared by the delivery tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from datetime import timedelta

import pytest
import trustme
from django.db import connections, transaction
from django.utils import timezone

from attribution_site import domain_events
from attribution_site.secrets import WEBHOOK_SIGNING, secret_encrypt
from delivery import payloads, services
from delivery.models import Delivery, PostbackConfig, Webhook
from tests.delivery.receivers import Receiver, Reply
from tests.processes import Process, readme_commands, service_env, stop_all


@pytest.fixture(scope="session")
def ca():
    return trustme.CA()


@pytest.fixture(scope="session")
def ca_bundle_path(ca, tmp_path_factory):
    path = tmp_path_factory.mktemp("ca") / "bundle.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def trusted_ca(ca_bundle_path, monkeypatch):
    """The sender trusts our CA the way an operator would configure it: REQUESTS_CA_BUNDLE."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca_bundle_path)
    return ca_bundle_path


@pytest.fixture
def private_destinations_allowed(settings):
    """Receivers on this machine are private addresses: allowed as an operator allows a
    receiver on their own network (OUTBOUND_ALLOW_PRIVATE_NETWORKS, off in production)."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture
def receiver_factory(ca, private_destinations_allowed):
    started: list[Receiver] = []

    def make(*replies: Reply, tls: bool = False, default: Reply | None = None) -> Receiver:
        context = None
        if tls:
            context = ssl_server_context(ca)
        receiver = Receiver(replies=list(replies), default=default, tls=context).start()
        started.append(receiver)
        return receiver

    yield make
    for receiver in started:
        receiver.stop()


def ssl_server_context(ca):
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@pytest.fixture
def receiver(receiver_factory):
    return receiver_factory()


@pytest.fixture
def tls_receiver(receiver_factory, trusted_ca):
    return receiver_factory(tls=True)


def make_postback(app, url: str, *, media_source: str = "network_a", method: str = "GET",
                  events=("install",), active: bool = True) -> PostbackConfig:
    postback = PostbackConfig.objects.create(app=app, media_source=media_source,
                                             postback_url=url, http_method=method,
                                             events=list(events), active=active)
    return postback


def make_webhook(app, url: str, *, events=("install", "event", "re-engagement"),
                 active: bool = True) -> tuple[Webhook, str]:
    secret = payloads.secret_generate()
    sealed = secret_encrypt(secret, purpose=WEBHOOK_SIGNING)
    webhook = Webhook.objects.create(app=app, url=url, events=list(events), active=active,
                                     secret_encrypted=sealed)
    return webhook, secret


def install_event(app, **overrides) -> domain_events.InstallAttributed:
    now = timezone.now()
    values = dict(app_id=app.id, install_id=uuid.uuid4(), device_id="gaid-1234",
                  platform="android", media_source="network_a", campaign_id="summer_sale",
                  match_type="device_id", confidence=97.5, is_organic=False, installed_at=now,
                  click_id=uuid.uuid4(), click_time=now - timedelta(hours=2))
    values.update(overrides)
    return domain_events.InstallAttributed(**values)


def event_tracked(app, **overrides) -> domain_events.EventTracked:
    values = dict(app_id=app.id, event_id=1, device_id="gaid-1234", install_id=uuid.uuid4(),
                  event_name="purchase", properties={"amount": 4.99, "currency": "EUR"},
                  occurred_at=timezone.now(), media_source="network_a",
                  campaign_id="summer_sale")
    values.update(overrides)
    return domain_events.EventTracked(**values)


def reengaged(app, **overrides) -> domain_events.InstallReengaged:
    now = timezone.now()
    values = dict(app_id=app.id, install_id=uuid.uuid4(), reengagement_id=uuid.uuid4(),
                  device_id="gaid-1234", platform="android", media_source="network_a",
                  campaign_id="winback", match_type="device_id", confidence=100.0,
                  click_id=uuid.uuid4(), click_time=now - timedelta(minutes=3),
                  reengaged_at=now, original_media_source="network_b")
    values.update(overrides)
    return domain_events.InstallReengaged(**values)


def publish(*events) -> None:
    """As tracking does it: inside the transaction that records the fact."""
    with transaction.atomic():
        domain_events.publish(list(events))


def attempt_all() -> list:
    """Send every due delivery in this process, the way a worker's task would."""
    return [services.delivery_attempt(delivery_id=pk)
            for pk in Delivery.objects.order_by("created_at").values_list("id", flat=True)]


@contextlib.contextmanager
def running_worker():
    """A Celery worker thread in this process, consuming the `delivery` queue from the real
    Redis broker. Tests using it are `transaction=True`, so the worker sees committed rows."""
    from celery.contrib.testing.worker import start_worker
    from celery.signals import task_postrun

    import delivery.tasks  # noqa: F401 - registers the tasks with the app
    from attribution_site.celery import app

    def close_connections(**kwargs):
        # The worker thread's connection must not outlive the test: the test database is
        # flushed (and at the end dropped) from the main thread.
        connections.close_all()

    task_postrun.connect(close_connections, weak=False)
    try:
        with start_worker(app, pool="solo", concurrency=1, queues=["delivery"],
                          perform_ping_check=False, shutdown_timeout=10) as worker:
            yield worker
    finally:
        task_postrun.disconnect(close_connections)
        purge_delivery_queue()


def purge_delivery_queue() -> None:
    from attribution_site.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge("delivery")


def wait_until(condition, timeout: float = 20.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


@pytest.fixture
def readme_process(transactional_db, tmp_path):
    """Start a README command; every process started is stopped at the end of the test,
    before the test database is emptied, and its output is printed (shown on failure)."""
    started: list[Process] = []
    purge_queues()

    def run(process: str, *, ready: str, **env: str) -> Process:
        command = readme_commands(process)[0]
        running = Process(command, cwd=tmp_path,
                          env=service_env(OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", **env),
                          log_path=tmp_path / f"{process}-{len(started)}.log")
        started.append(running)
        running.wait_for_output(ready)
        return running

    try:
        yield run
    finally:
        stop_all(started)
        for running in started:
            print(f"--- output of {running.command!r}:\n{running.output()}")
        purge_queues()


def purge_queues() -> None:
    from attribution_site.celery import app

    with app.connection_for_write() as broker:
        for queue in app.conf.task_queues:
            broker.default_channel.queue_purge(queue.name)


__all__ = [
    "attempt_all",
    "ca",
    "ca_bundle_path",
    "event_tracked",
    "install_event",
    "make_postback",
    "make_webhook",
    "private_destinations_allowed",
    "publish",
    "purge_delivery_queue",
    "purge_queues",
    "readme_process",
    "receiver",
    "receiver_factory",
    "reengaged",
    "running_worker",
    "ssl_server_context",
    "tls_receiver",
    "trusted_ca",
    "wait_until",
]
