"""The rules add no query to /installs: the settings, the flooding sources and a key's signing
secret come from the process's caches once read (docs/fraud.md, "Rules")."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from fraud import services as fraud_services
from fraud import verdict as v
from fraud.models import AppFraudSettings, SigningSecret, SourceFlag
from tests.fraud.helpers import click, install

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def test_an_install_reads_no_fraud_table_once_the_caches_hold_them(sdk, app,
                                                                   live_local_caches):
    fraud_services.settings_update(app_id=app.id, changes={
        "anonymous_traffic_mode": v.FLAG, "listed_networks": ["192.0.2.0/24"],
        "signing_mode": v.SIGNING_REPORT})
    install(sdk, app, device="warm-up")
    click(app, seconds_ago=3, device="gaid-2")
    with CaptureQueriesContext(connection) as queries:
        response = install(sdk, app, device="gaid-2")
    assert response.status_code == 201
    tables = [m._meta.db_table for m in (AppFraudSettings, SigningSecret, SourceFlag)]
    assert [q["sql"] for q in queries if any(t in q["sql"] for t in tables)] == []
    assert len(queries) > 0  # the install was written, in this connection
