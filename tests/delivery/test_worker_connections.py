"""A worker started the ordinary way (`celery -A attribution_site worker`, one pool process so
its PostgreSQL backends can be named) keeps its database connections from one task to the next,
and replaces those whose backends were ended (attribution_site/worker_connections.py), with its
own connection (DATABASE_POOL=off) and with Django's pool (DATABASE_POOL=django)."""

import os
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from delivery.models import Delivery, DeliveryAttempt, State
from tests.delivery.helpers import install_event, make_postback, publish, wait_until
from tests.helpers import REQUIRE_SERVICES
from tests.processes import Process, service_env

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKER = "celery -A attribution_site worker --loglevel=INFO -c 1"
# libpq's own variable names the worker's sessions, so neither this test process's connections
# (several, when it runs with Django's pool) nor any other process's are taken for the worker's.
WORKER_APPLICATION = "attribution-test-worker"


@pytest.fixture(params=["off", "django"])
def one_process_worker(request, readme_process, tmp_path, settings):
    env = service_env(OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", DATABASE_POOL=request.param,
                      PGAPPNAME=WORKER_APPLICATION)
    if settings.DATABASE_POOL == "pgbouncer":
        env["DATABASE_URL"] = server_url(connection.settings_dict["NAME"])
    worker = Process(WORKER, cwd=tmp_path, log_path=tmp_path / "worker.log", env=env)
    try:
        worker.wait_for_output(" ready.")
        yield worker
    finally:
        worker.stop()
        print(f"--- output of {WORKER!r}:\n{worker.output()}")


def server_url(database: str) -> str:
    """When this suite runs behind PgBouncer (CI's last run), the worker goes to the PostgreSQL
    server itself: its own backends are what this test watches, and through PgBouncer they
    would be PgBouncer's server connections."""
    server = os.environ.get("PGBOUNCER_SERVER_URL")
    if not server:
        reason = ("needs the PostgreSQL server behind PgBouncer: run through "
                  "`python -m tests.pooling.pgbouncer -- make test` (sets PGBOUNCER_SERVER_URL)")
        if REQUIRE_SERVICES:
            pytest.fail(reason)
        pytest.skip(reason)
    return urlunsplit(urlsplit(server)._replace(path=f"/{database}"))


def worker_backends() -> set[tuple[int, object]]:
    """(pid, backend start) of the worker's sessions on the test database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, backend_start FROM pg_stat_activity WHERE datname = "
                       "current_database() AND application_name = %s",
                       [WORKER_APPLICATION])
        return set(cursor.fetchall())


def deliver(app, count: int) -> None:
    before = Delivery.objects.filter(state=State.SUCCEEDED).count()
    for n in range(count):
        publish(install_event(app, device_id=f"gaid-{before + n}"))
    wait_until(lambda: Delivery.objects.filter(state=State.SUCCEEDED).count() == before + count,
               timeout=60)


def test_a_worker_runs_many_tasks_on_one_database_backend(app, receiver, one_process_worker):
    make_postback(app, receiver.url("/pb?d={device_id}"))
    deliver(app, 1)
    backends = worker_backends()
    deliver(app, 20)
    assert backends and worker_backends() == backends
    assert len(receiver.requests) == 21


def test_a_worker_whose_backends_were_ended_opens_new_ones_and_the_next_task_succeeds(
        app, receiver, one_process_worker):
    make_postback(app, receiver.url("/pb?d={device_id}"))
    deliver(app, 1)
    ended = worker_backends()
    with connection.cursor() as cursor:
        for pid, _started in ended:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    wait_until(lambda: not worker_backends())
    deliver(app, 1)
    assert worker_backends() and not worker_backends() & ended
    assert DeliveryAttempt.objects.filter(succeeded=False).count() == 0
    assert DeliveryAttempt.objects.filter(succeeded=True).count() == 2
    assert "Traceback" not in one_process_worker.output()
