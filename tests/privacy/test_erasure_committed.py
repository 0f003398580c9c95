"""The same figures when every write commits on its own, as in production: the rows arrive,
beat's rollups add them, the erasure commits its UPDATEs, and the rollups' next pass adds
nothing (the rows keep the transaction id, PostgreSQL's `txid`, or the rowid, SQLite's, that
placed them: tracking/changes.py)."""

from __future__ import annotations

import pytest

from analytics.tasks import rollups_refresh
from privacy import services
from privacy.models import RequestStatus, SubjectRequest
from tests.privacy.helpers import GAID, opendsr_body
from tests.privacy.test_erasure import figures
from tracking.models import Install

pytestmark = pytest.mark.django_db(transaction=True)


def test_committed_erasure_leaves_the_rollups_as_they_were(owner_api, app, world, settings):
    settings.ANALYTICS_REFRESH_ON_READ = False  # the rollups move only when beat's task runs
    rollups_refresh()
    before = figures(owner_api, app)
    assert before["dashboard"]["kpis"]["total_installs"] == 2
    body = opendsr_body(app)
    assert owner_api.post("/api/v1/privacy/requests", body, format="json").status_code == 201
    services.request_run(request_id=body["subject_request_id"])  # ran already without Redis
    assert SubjectRequest.objects.get().status == RequestStatus.COMPLETED
    assert not Install.objects.filter(device_id=GAID).exists()
    rollups_refresh()
    assert figures(owner_api, app) == before
