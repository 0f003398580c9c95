"""An erasure leaves no trace of the identity (the API's install and event reads, the exports,
the delivery logs, every table) while the dashboard's figures stay exactly as they were, and
the same device installing again is a new user."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apple_ads.models import Attempt as AppleAttempt
from apple_ads.models import Claim
from delivery.models import Delivery, DeliveryAttempt
from links.models import LinkOpen
from outbox.sweep import kind_sweep
from privacy import services
from privacy.enqueue import RUNS
from privacy.models import RequestRun, RequestStatus, SubjectRequest
from tests.privacy.helpers import CUSTOMER, GAID, OTHER, install, opendsr_body
from tests.tracking.helpers import PUBLIC_IP
from tracking.models import Click, ClickArchive, Event, Install

pytestmark = pytest.mark.django_db

@pytest.fixture(autouse=True)
def _reports_refresh_on_read(settings):
    settings.ANALYTICS_REFRESH_ON_READ = True


REPORTS = ("dashboard", "sources", "campaigns", "retention", "revenue", "attribution")


def figures(client, app):
    """Every report's answer for the days around today, without when it was read."""
    today = timezone.now().date()
    answers = {}
    for report in REPORTS:
        response = client.get(f"/api/v1/analytics/{report}", {
            "app_id": str(app.id), "start_date": str(today - timedelta(days=1)),
            "end_date": str(today + timedelta(days=1))})
        assert response.status_code == 200, response.content
        answer = response.json()["data"]
        answer.pop("data_through", None)  # when the rollups were read, not a figure
        answers[report] = answer
    return answers


def export(client, app, kind):
    today = timezone.now().date()
    response = client.get("/api/v1/analytics/export", {
        "app_id": str(app.id), "type": kind, "start_date": str(today - timedelta(days=1)),
        "end_date": str(today + timedelta(days=1))})
    assert response.status_code == 200
    return b"".join(response.streaming_content if response.streaming else [response.content])


def erase(owner_api, app, identity_type="android_advertising_id", value=GAID):
    body = opendsr_body(app, subject_identities=[
        {"identity_type": identity_type, "identity_format": "raw", "identity_value": value}])
    assert owner_api.post("/api/v1/privacy/requests", body, format="json").status_code == 201
    assert services.request_run(request_id=body["subject_request_id"])
    return body["subject_request_id"]


def test_an_erasure_leaves_no_trace_and_the_same_figures(owner_api, sdk, app, world):
    before = figures(owner_api, app)
    kpis = before["dashboard"]["kpis"]
    assert kpis["total_installs"] == 2 and kpis["total_clicks"] == 2
    assert before["dashboard"]["unconverted_revenue"] == [{"currency": "EUR", "amount": 9.98}]
    assert Delivery.objects.filter(body__contains=GAID).exists()
    assert DeliveryAttempt.objects.filter(url__contains=GAID).exists()

    request_id = erase(owner_api, app)

    status = owner_api.get(f"/api/v1/privacy/requests/{request_id}").json()["data"]
    assert status["request_status"] == "completed"
    found = status["found"]
    assert found["tracking_install"] == 1 and found["tracking_event"] == 2
    assert found["tracking_click"] == 1 and found["tracking_clickarchive"] == 1
    assert found["links_linkopen"] == 1 and found["apple_ads_claim"] == 1
    assert found["delivery_delivery"] == 3  # the install's postback and two events'

    # The API: installs searched by the id, the install itself, its events.
    listed = owner_api.get("/api/v1/installs", {"app_id": str(app.id), "device_id": GAID})
    assert listed.json()["data"]["installs"] == []
    detail = owner_api.get(f"/api/v1/installs/{world.id}").json()["data"]["install"]
    assert detail["device_id"] is None and detail["customer_user_id"] is None
    assert GAID not in json.dumps(detail)
    # Exports and delivery logs.
    for kind in ("installs", "events", "revenue"):
        assert GAID.encode() not in export(owner_api, app, kind)
        assert CUSTOMER.encode() not in export(owner_api, app, kind)
    logs = owner_api.get("/api/v1/postbacks/logs", {"app_id": str(app.id)})
    assert logs.status_code == 200
    assert GAID not in logs.content.decode() and len(logs.json()["data"]["logs"]) >= 3
    # Every table, every column that held it.
    assert not Click.objects.filter(advertising_id=GAID).exists()
    assert not ClickArchive.objects.filter(advertising_id=GAID).exists()
    assert ClickArchive.objects.filter(advertising_id=OTHER).exists()  # the bystander stays
    erased = Install.objects.get(id=world.id)
    assert (erased.device_id, erased.ip, erased.user_agent, erased.customer_user_id) == \
        (None, None, "", None)
    assert Install.objects.get(device_id=OTHER).ip == PUBLIC_IP
    assert not Event.objects.filter(device_id=GAID).exists()
    assert Event.objects.filter(install_id=world.id).count() == 2  # still counted
    assert not Delivery.objects.filter(body__contains=GAID).exists()
    assert not DeliveryAttempt.objects.filter(url__contains=GAID).exists()
    assert not LinkOpen.objects.filter(device_id=GAID).exists()
    assert Claim.objects.get().token == "" and AppleAttempt.objects.get().response_body == ""
    # The audit record keeps a hash, never the identity.
    record = SubjectRequest.objects.get(id=request_id)
    assert record.identity_value == "" and record.encoded_request == ""
    assert GAID not in json.dumps(status)

    assert figures(owner_api, app) == before


def test_the_same_device_installing_after_its_erasure_is_a_new_user(owner_api, sdk, app, world):
    erase(owner_api, app)
    again = install(sdk, app, GAID)
    assert again.status_code == 201
    assert again.json()["data"]["installId"] != str(world.id)
    assert Install.objects.filter(app_id=app.id).count() == 3


def test_an_install_id_or_a_customer_id_finds_the_same_subject(owner_api, app, world):
    erase(owner_api, app, "customer_user_id", CUSTOMER)
    assert not ClickArchive.objects.filter(advertising_id=GAID).exists()
    assert Install.objects.get(id=world.id).device_id is None


def test_an_erasure_runs_once(owner_api, app, world):
    request_id = erase(owner_api, app)
    assert not services.request_run(request_id=request_id)
    assert SubjectRequest.objects.get(id=request_id).status == RequestStatus.COMPLETED


def test_the_sweep_runs_a_request_whose_message_was_lost(owner_api, app, world, settings):
    body = opendsr_body(app)  # the on_commit message never fires in a test transaction
    owner_api.post("/api/v1/privacy/requests", body, format="json")
    hour_ago = timezone.now() - timedelta(hours=1)
    RequestRun.objects.update(next_attempt_at=hour_ago, updated_at=hour_ago)
    settings.PRIVACY_SWEEP_GRACE_SECONDS = 60
    sent = kind_sweep(RUNS, now=timezone.now())
    assert sent == [body["subject_request_id"]]
