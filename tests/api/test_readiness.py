"""The readiness registry (attribution_site/readiness.py): /readyz reports every check the apps
registered under its own key, and a check that breaks is "not checked", never a failed probe."""

import pytest

from attribution_site import readiness

pytestmark = pytest.mark.django_db


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setattr(readiness, "_checks", dict(readiness._checks))
    return readiness.register


def test_the_apps_register_their_checks_and_readyz_reports_each(client):
    data = client.get("/readyz").json()["data"]
    for name in ("deliveries", "delivery_workers", "partitions", "replica"):
        assert name in data["checks"] and name in data


def test_a_registered_check_is_reported_under_its_name(client, registered):
    registered("exports", lambda basics: ("warning", {"behind": 3, "database": basics["database"]}))
    data = client.get("/readyz").json()["data"]
    assert data["checks"]["exports"] == "warning"
    assert data["exports"] == {"behind": 3, "database": True}
    assert data["status"] == "ready"


def test_a_check_that_breaks_is_not_checked_and_the_process_stays_ready(client, registered):
    def broken(basics):
        raise RuntimeError("the bucket is gone")

    registered("exports", broken)
    response = client.get("/readyz")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["checks"]["exports"] == "not checked" and data["exports"] is None
