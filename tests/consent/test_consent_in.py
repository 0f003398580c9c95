"""Consent in through the API (docs/privacy.md, "Consent"): `consent_data` on /installs and on
each event of /events, POST /consent, the history they write, and what GET /installs/{id}
shows. Real database, real HTTP stack."""

import time
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from consent.models import ConsentRecord
from tests.consent.tc_strings import GOOGLE, tc_string
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import install_body
from tracking.models import Install

pytestmark = pytest.mark.django_db

SESSION = "0b9d2c3e-8f5e-4a4c-9a55-1f2b3c4d5e6f"
DENIED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                     "ad_personalization_enabled": False}}
GRANTED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": True,
                      "ad_personalization_enabled": True}}
TCF_PURPOSES_3_4 = {"tcf": {"tcstring": tc_string(purposes=[3, 4], vendors=[GOOGLE],
                                                  cmp_id=31),
                            "gdpr_applies": 1, "policy_version": 4, "cmp_sdk_id": 31,
                            "cmp_sdk_version": 7}}


def event(**overrides):
    values = {"event_name": "level_up", "properties": {"level": 2},
              "timestamp": int(time.time() * 1000) - 60_000, "session_id": SESSION}
    values.update(overrides)
    return values


def events_body(app, events, device_id="gaid-1"):
    return {"app_id": str(app.id), "device_id": device_id, "sdk_version": "2.4.0",
            "events": events}


def detail(owner_api, install_id):
    response = owner_api.get(f"/api/v1/installs/{install_id}")
    assert response.status_code == 200
    return response.json()["data"]["install"]


# --- /installs -----------------------------------------------------------------------------

def test_an_install_with_a_tc_string_shows_its_decoded_consent(sdk, app, owner_api):
    response = sdk.post("/api/v1/installs", install_body(
        app, device_id="gaid-1", consent_data=TCF_PURPOSES_3_4), format="json")
    assert response.status_code == 201
    install_id = response.json()["data"]["installId"]
    assert detail(owner_api, install_id)["consent"] == {
        "gdpr_applies": True, "ad_user_data": False, "ad_personalization": True,
        "source": "tcf", "sharing_filter": None,
        "tcf": {"policy_version": 4, "cmp_id": 31, "purposes_consent": [3, 4],
                "vendor_755": True}}
    row = ConsentRecord.objects.get()
    assert str(row.install_id) == install_id and row.device_id == "gaid-1"
    assert row.tcstring == TCF_PURPOSES_3_4["tcf"]["tcstring"]


def test_an_install_without_consent_shows_null(sdk, app, owner_api):
    response = sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"),
                        format="json")
    assert detail(owner_api, response.json()["data"]["installId"])["consent"] is None
    assert not ConsentRecord.objects.exists()


def test_manual_consent_on_an_install_is_stored(sdk, app, owner_api):
    response = sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1",
                                                         consent_data=DENIED), format="json")
    consent = detail(owner_api, response.json()["data"]["installId"])["consent"]
    assert consent == {"gdpr_applies": True, "ad_user_data": False,
                       "ad_personalization": False, "source": "manual",
                       "sharing_filter": None, "tcf": None}


@pytest.mark.parametrize(("consent_data", "field"), [
    ({"manual": {"gdpr_applies": "yes"}}, "consent_data.manual.gdpr_applies"),
    ({"manual": {"gdpr_applies": False}, "tcf": {"gdpr_applies": 0}}, "consent_data"),
    ({"manual": {"gdpr_applies": False, "gdpr": 1}}, "consent_data.manual.gdpr"),
    ({"tcf": {"tcstring": "COtybn4PA_zT4Kj", "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ({"tcf": {"tcstring": "%%%", "gdpr_applies": 1}}, "consent_data.tcf.tcstring"),
    ("granted", "consent_data"),
])
def test_bad_consent_data_on_an_install_is_a_400_naming_the_field(sdk, app, consent_data,
                                                                   field):
    response = sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1",
                                                         consent_data=consent_data),
                        format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["error"]["code"] == "VALIDATION_ERROR"
    assert list(body["error"]["details"]) == [field]
    assert not Install.objects.exists() and not ConsentRecord.objects.exists()


def test_a_repeated_install_with_the_same_consent_adds_no_row_and_a_change_adds_one(
        sdk, app, owner_api):
    body = install_body(app, device_id="gaid-1", consent_data=DENIED)
    first = sdk.post("/api/v1/installs", body, format="json")
    assert sdk.post("/api/v1/installs", body, format="json").status_code == 200
    assert ConsentRecord.objects.count() == 1
    sdk.post("/api/v1/installs", {**body, "consent_data": GRANTED}, format="json")
    assert ConsentRecord.objects.count() == 2
    assert detail(owner_api, first.json()["data"]["installId"])["consent"]["ad_user_data"]


def test_consent_on_a_new_install_joins_the_installs_own_statement(sdk, app):
    def statements(body):
        with CaptureQueriesContext(connection) as queries:
            assert sdk.post("/api/v1/installs", body, format="json").status_code == 201
        return [q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]

    statements(install_body(app, device_id="gaid-0"))  # the key and the app, cached from now
    plain = statements(install_body(app, device_id="gaid-1"))
    with_consent = statements(install_body(app, device_id="gaid-2", consent_data=DENIED))
    extra = 0 if connection.vendor == "postgresql" else 1  # SQLite: one INSERT per table
    assert len(with_consent) == len(plain) + extra
    assert any("consent_consentrecord" in sql for sql in with_consent)
    assert not any("consent_consentrecord" in sql for sql in plain)


# --- /events -------------------------------------------------------------------------------

def test_an_events_consent_is_stored_from_the_events_time(sdk, app):
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")
    moment = int(time.time() * 1000) - 3_600_000
    response = sdk.post("/api/v1/events", events_body(app, [
        event(timestamp=moment, consent_data=DENIED)]), format="json")
    assert response.status_code == 200 and response.json()["data"]["accepted"] == 1
    row = ConsentRecord.objects.get()
    assert row.install_id == Install.objects.get().id
    assert int(row.applies_from.timestamp() * 1000) == moment
    assert row.ad_user_data is False


def test_events_repeating_the_consent_add_one_row_and_changes_add_one_each(sdk, app):
    now = int(time.time() * 1000)
    sdk.post("/api/v1/events", events_body(app, [
        event(timestamp=now - 5000, consent_data=GRANTED),
        event(timestamp=now - 4000, consent_data=GRANTED),
        event(timestamp=now - 3000)]), format="json")
    assert ConsentRecord.objects.count() == 1
    sdk.post("/api/v1/events", events_body(app, [
        event(timestamp=now - 2000, consent_data=GRANTED),
        event(timestamp=now - 1000, consent_data=DENIED)]), format="json")
    assert list(ConsentRecord.objects.order_by("applies_from")
                .values_list("ad_user_data", flat=True)) == [True, False]


def test_an_event_with_bad_consent_data_is_rejected_alone(sdk, app):
    response = sdk.post("/api/v1/events", events_body(app, [
        event(), event(consent_data={"tcf": {"tcstring": "bad!", "gdpr_applies": 1}})]),
        format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["accepted"] == 1
    assert data["rejected"] == [{"index": 1, "errors": {
        "consent_data.tcf.tcstring": [data["rejected"][0]["errors"][
            "consent_data.tcf.tcstring"][0]]}}]
    assert "base64url" in data["rejected"][0]["errors"]["consent_data.tcf.tcstring"][0]
    assert not ConsentRecord.objects.exists()


def test_events_without_consent_data_touch_no_consent_table(sdk, app):
    with CaptureQueriesContext(connection) as queries:
        sdk.post("/api/v1/events", events_body(app, [event(), event()]), format="json")
    assert not any("consent_consentrecord" in q["sql"] for q in queries)


def test_events_with_consent_data_cost_one_statement(sdk, app):
    with CaptureQueriesContext(connection) as queries:
        sdk.post("/api/v1/events", events_body(app, [event(consent_data=DENIED)]),
                 format="json")
    assert len([q for q in queries if "consent_consentrecord" in q["sql"]]) == 1


# --- POST /consent -------------------------------------------------------------------------

def test_a_consent_change_by_install_id_applies_from_now(sdk, app, owner_api):
    install_id = sdk.post("/api/v1/installs", install_body(
        app, device_id="gaid-1", consent_data=GRANTED), format="json").json()["data"]["installId"]
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), "install_id": install_id,
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["install_id"] == install_id and data["device_id"] == "gaid-1"
    assert data["consent"]["ad_user_data"] is False
    assert data["applies_from"].endswith("Z")
    assert detail(owner_api, install_id)["consent"]["ad_user_data"] is False
    assert ConsentRecord.objects.count() == 2  # the history keeps both


def test_a_consent_change_by_device_id_finds_the_install(sdk, app):
    sdk.post("/api/v1/installs", install_body(app, device_id="gaid-1"), format="json")
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), "device_id": "GAID-1",
                                            "consent_data": TCF_PURPOSES_3_4}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["install_id"] == str(Install.objects.get().id)
    assert response.json()["data"]["consent"]["tcf"]["purposes_consent"] == [3, 4]


def test_consent_sent_before_the_install_counts_for_it(sdk, app, owner_api):
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), "device_id": "gaid-9",
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 201 and response.json()["data"]["install_id"] is None
    install_id = sdk.post("/api/v1/installs", install_body(app, device_id="gaid-9"),
                          format="json").json()["data"]["installId"]
    assert detail(owner_api, install_id)["consent"]["ad_user_data"] is False


def test_the_same_consent_twice_adds_one_row(sdk, app):
    body = {"app_id": str(app.id), "device_id": "gaid-1", "consent_data": DENIED}
    assert sdk.post("/api/v1/consent", body, format="json").status_code == 201
    assert sdk.post("/api/v1/consent", body, format="json").status_code == 201
    assert ConsentRecord.objects.count() == 1


def test_an_unknown_install_is_a_404(sdk, app):
    other_install = uuid.uuid4()
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id),
                                            "install_id": str(other_install),
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_another_apps_install_is_a_404(sdk, app, owner):
    other = AppFactory(organization=app.organization)
    other_sdk_key = issue_key(other)
    from rest_framework.test import APIClient
    other_sdk = APIClient()
    other_sdk.credentials(HTTP_X_API_KEY=other_sdk_key)
    install_id = other_sdk.post("/api/v1/installs", install_body(other, device_id="gaid-1"),
                                format="json").json()["data"]["installId"]
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), "install_id": install_id,
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 404


def test_a_key_of_another_app_is_a_403(sdk, app):
    other = AppFactory(organization=app.organization)
    response = sdk.post("/api/v1/consent", {"app_id": str(other.id), "device_id": "gaid-1",
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"app_id": [
        "Does not match the API key's app."]}


def test_without_a_key_it_is_a_401(api, app):
    response = api.post("/api/v1/consent", {"app_id": str(app.id), "device_id": "gaid-1",
                                            "consent_data": DENIED}, format="json")
    assert response.status_code == 401


@pytest.mark.parametrize(("body", "field"), [
    ({"consent_data": DENIED}, "device_id"),
    ({"device_id": "gaid-1"}, "consent_data"),
    ({"device_id": 42, "consent_data": DENIED}, "device_id"),
    ({"device_id": "0000-0000", "consent_data": DENIED}, "device_id"),
    ({"install_id": "not-a-uuid", "consent_data": DENIED}, "install_id"),
    ({"device_id": "gaid-1", "consent_data": DENIED, "extra": True}, "extra"),
    ({"device_id": "gaid-1", "consent_data": {"manual": {"gdpr_applies": True}}},
     "consent_data.manual.ad_user_data_enabled"),
    ({"device_id": "gaid-1", "consent_data": {"tcf": {"tcstring": "x", "gdpr_applies": 1}}},
     "consent_data.tcf.tcstring"),
])
def test_bad_consent_changes_are_400s_naming_the_field(sdk, app, body, field):
    response = sdk.post("/api/v1/consent", {"app_id": str(app.id), **body}, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not ConsentRecord.objects.exists()
