"""Delivery's readiness checks in /readyz (delivery/readiness.py): with no worker consuming the
`delivery` queue, /readyz says so at once, as a warning that leaves the process ready (the
overdue count, tests/delivery/test_overdue.py, needs three minutes to notice). With a worker:
tests/delivery/test_plain_worker.py."""

import pytest

from attribution_site.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.mark.redis
def test_readyz_warns_at_once_that_no_worker_consumes_the_delivery_queue(
        client, fresh_worker_answer):
    response = client.get("/readyz")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "ready" and data["checks"]["delivery_workers"] == "warning"
    assert data["delivery_workers"] == {"queue": "delivery", "workers": []}
    assert data["checks"]["deliveries"] == "ok"  # nothing overdue yet: only this check knows


def test_without_a_broker_nobody_needs_to_consume_the_queue(client, monkeypatch):
    monkeypatch.setitem(celery_app.conf, "task_always_eager", True)
    data = client.get("/readyz").json()["data"]
    assert data["checks"]["delivery_workers"] == "not configured"
    assert data["delivery_workers"] is None
