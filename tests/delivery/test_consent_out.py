"""Consent out (docs/privacy.md, "What consent changes"): a postback for a user under the GDPR
who denied ad_user_data goes without identifiers (`strip`) or not at all (`suppress`), a
sharing filter of "all" stops every postback, webhooks still go with the consent in their data,
and the delivery log says why. Facts come in through the real SDK endpoints and leave to real
local receivers, sent as a worker sends them."""

import json
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from attribution_site.write_batch import WriteBatch
from consent import services as consent_services
from consent.consent_data import parse
from delivery import services
from delivery.models import Delivery, PostbackConfig, State
from delivery.services.fanout import FILTERED_NOTE, STRIPPED_NOTE, SUPPRESSED_NOTE
from tests.consent.tc_strings import GOOGLE, tc_string
from tests.delivery.helpers import (
    attempt_all,
    event_tracked,
    install_event,
    make_postback,
    make_webhook,
    publish,
)
from tests.factories import issue_key

pytestmark = pytest.mark.django_db

TEMPLATE = ("/pb?d={device_id}&i={install_id}&src={media_source}&c={campaign_id}"
            "&m={match_type}")
DENIED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                     "ad_personalization_enabled": True}}
GRANTED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": True,
                      "ad_personalization_enabled": True}}
# Purposes 1 and 7 refused in the CMP: Google's mapping denies ad_user_data.
TCF_DENIED = {"tcf": {"tcstring": tc_string(purposes=[2, 3, 4], vendors=[GOOGLE]),
                      "gdpr_applies": 1}}
SESSION = "0b9d2c3e-8f5e-4a4c-9a55-1f2b3c4d5e6f"


@pytest.fixture
def sdk(app):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(app))
    return client


def attributed_install(api, sdk, app, *, device_id="gaid-1", consent_data=None,
                       source="network_a"):
    """A click from `source`, then the install it brings (matched by device id)."""
    api.get("/api/v1/clicks", {"app_id": str(app.id), "pid": source, "c": "summer",
                               "advertising_id": device_id}, REMOTE_ADDR="81.2.69.142")
    body = {"app_id": str(app.id), "platform": "android", "sdk_version": "2.4.0",
            "device_id": device_id}
    if consent_data is not None:
        body["consent_data"] = consent_data
    response = sdk.post("/api/v1/installs", body, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["mediaSource"] == source
    return response.json()["data"]["installId"]


def query_of(request):
    return {k: v[0] for k, v in parse_qs(urlsplit(request.path).query,
                                         keep_blank_values=True).items()}


def test_a_granted_users_postback_carries_its_identifiers(api, sdk, app, receiver):
    make_postback(app, receiver.url(TEMPLATE))
    install_id = attributed_install(api, sdk, app, consent_data=GRANTED)
    attempt_all()
    [request] = receiver.requests
    assert query_of(request)["d"] == "gaid-1" and query_of(request)["i"] == install_id
    assert Delivery.objects.get().consent_note == ""


@pytest.mark.parametrize("consent_data", [DENIED, TCF_DENIED])
def test_strip_sends_the_postback_without_identifiers(api, sdk, app, receiver, consent_data):
    make_postback(app, receiver.url(TEMPLATE))
    attributed_install(api, sdk, app, consent_data=consent_data)
    attempt_all()
    [request] = receiver.requests
    assert query_of(request) == {"d": "", "i": "", "src": "network_a", "c": "summer",
                                 "m": "device_id"}
    delivery = Delivery.objects.get()
    assert delivery.state == State.SUCCEEDED and delivery.consent_note == STRIPPED_NOTE
    assert "gaid-1" not in delivery.body  # not even kept for a retry


def test_a_stripped_post_postback_sends_null_identifiers(api, sdk, app, receiver):
    make_postback(app, receiver.url("/pb"), method="POST")
    attributed_install(api, sdk, app, consent_data=DENIED)
    attempt_all()
    values = json.loads(receiver.requests[0].body)
    assert values["device_id"] is None and values["install_id"] is None
    assert values["media_source"] == "network_a"


def test_suppress_sends_nothing_and_the_log_says_why(api, sdk, app, receiver, owner_api):
    postback = make_postback(app, receiver.url(TEMPLATE))
    PostbackConfig.objects.filter(id=postback.id).update(consent_policy="suppress")
    attributed_install(api, sdk, app, consent_data=DENIED)
    assert attempt_all() == [None]
    assert receiver.requests == []
    delivery = Delivery.objects.get()
    assert delivery.state == State.SKIPPED and delivery.consent_note == SUPPRESSED_NOTE
    assert delivery.completed_at is not None and delivery.attempts_made == 0
    [entry] = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}").json()["data"]["logs"]
    assert entry["delivery_state"] == "skipped"
    assert entry["consent_note"] == SUPPRESSED_NOTE
    # Never sent, and still named: the owner can open the install it was about.
    from tracking.models import Install

    assert (entry["install_id"], entry["event_id"]) == (str(Install.objects.get().id), None)
    assert entry["attempt_number"] is None and entry["next_attempt_at"] is None
    skipped = owner_api.get(f"/api/v1/postbacks/logs?app_id={app.id}&state=skipped")
    assert len(skipped.json()["data"]["logs"]) == 1


def test_suppress_leaves_granted_users_alone(api, sdk, app, receiver):
    postback = make_postback(app, receiver.url(TEMPLATE))
    PostbackConfig.objects.filter(id=postback.id).update(consent_policy="suppress")
    attributed_install(api, sdk, app, consent_data=GRANTED)
    attempt_all()
    assert query_of(receiver.requests[0])["d"] == "gaid-1"


def test_outside_the_gdpr_nothing_is_stripped(api, sdk, app, receiver):
    make_postback(app, receiver.url(TEMPLATE))
    attributed_install(api, sdk, app, consent_data={"manual": {
        "gdpr_applies": False, "ad_user_data_enabled": False}})
    attempt_all()
    assert query_of(receiver.requests[0])["d"] == "gaid-1"


def test_a_sharing_filter_stops_every_postback_but_not_the_webhook(
        api, sdk, app, receiver_factory):
    network, hooks = receiver_factory(), receiver_factory()
    make_postback(app, network.url(TEMPLATE))
    make_webhook(app, hooks.url("/hook"))
    attributed_install(api, sdk, app, consent_data={**GRANTED, "sharing_filter": "all"})
    attempt_all()
    assert network.requests == []
    [hook] = hooks.requests
    data = json.loads(hook.body)["data"]
    assert data["device_id"] == "gaid-1"  # the owner's own server gets everything
    assert data["consent"]["sharing_filter"] == "all"
    postback_row = Delivery.objects.get(kind="postback")
    assert postback_row.state == State.SKIPPED and postback_row.consent_note == FILTERED_NOTE


def test_a_webhook_carries_the_consent_in_force(api, sdk, app, receiver):
    make_webhook(app, receiver.url("/hook"))
    attributed_install(api, sdk, app, consent_data=TCF_DENIED)
    attempt_all()
    data = json.loads(receiver.requests[0].body)["data"]
    assert data["consent"] == {
        "gdpr_applies": True, "ad_user_data": False, "ad_personalization": True,
        "source": "tcf", "sharing_filter": None,
        "tcf": {"policy_version": 4, "cmp_id": 300, "purposes_consent": [2, 3, 4],
                "vendor_755": True}}
    assert data["device_id"] == "gaid-1"
    assert Delivery.objects.get().consent_note == ""


def test_a_webhook_without_any_consent_says_null(api, sdk, app, receiver):
    make_webhook(app, receiver.url("/hook"))
    attributed_install(api, sdk, app)
    attempt_all()
    assert json.loads(receiver.requests[0].body)["data"]["consent"] is None


def test_an_events_postback_follows_the_consent_changed_after_the_install(
        api, sdk, app, receiver):
    make_postback(app, receiver.url(TEMPLATE + "&e={event_name}"), events=["event"])
    install_id = attributed_install(api, sdk, app, consent_data=GRANTED)
    now = int(time.time() * 1000)
    first = {"event_name": "before", "properties": {}, "timestamp": now - 60_000,
             "session_id": SESSION}
    sdk.post("/api/v1/events", {"app_id": str(app.id), "device_id": "gaid-1",
                                "sdk_version": "2.4.0", "events": [first]}, format="json")
    assert sdk.post("/api/v1/consent", {"app_id": str(app.id), "install_id": install_id,
                                        "consent_data": DENIED},
                    format="json").status_code == 201
    later = {**first, "event_name": "after", "timestamp": int(time.time() * 1000) + 1000}
    sdk.post("/api/v1/events", {"app_id": str(app.id), "device_id": "gaid-1",
                                "sdk_version": "2.4.0", "events": [later]}, format="json")
    attempt_all()
    by_name = {query_of(r)["e"]: query_of(r) for r in receiver.requests}
    assert by_name["before"]["d"] == "gaid-1"
    assert by_name["after"]["d"] == "" and by_name["after"]["i"] == ""


def test_an_events_own_consent_applies_to_it(api, sdk, app, receiver):
    make_postback(app, receiver.url(TEMPLATE + "&e={event_name}"), events=["event"])
    attributed_install(api, sdk, app)
    sdk.post("/api/v1/events", {"app_id": str(app.id), "device_id": "gaid-1",
                                "sdk_version": "2.4.0", "events": [{
                                    "event_name": "purchase", "properties": {},
                                    "timestamp": int(time.time() * 1000) - 1000,
                                    "session_id": SESSION, "consent_data": DENIED}]},
             format="json")
    attempt_all()
    [request] = receiver.requests
    assert query_of(request)["d"] == "" and query_of(request)["e"] == "purchase"


def test_a_batchs_consent_is_read_with_one_query(app):
    make_postback(app, "https://network.example/pb", events=["event"])
    batch = WriteBatch()
    with CaptureQueriesContext(connection) as queries:
        services.deliveries_for_events(
            [event_tracked(app, event_id=n, device_id=f"gaid-{n}") for n in range(50)], batch)
    assert len([q for q in queries if "consent_consentrecord" in q["sql"]]) == 1
    with transaction.atomic():
        batch.execute()
    assert Delivery.objects.count() == 50


def test_facts_carrying_their_consent_need_no_lookup(app):
    make_postback(app, "https://network.example/pb", events=["event"])
    denied = parse(DENIED)
    with CaptureQueriesContext(connection) as queries:
        services.deliveries_for_events(
            [event_tracked(app, event_id=n, consent=denied) for n in range(5)], WriteBatch())
    assert not [q for q in queries if "consent_consentrecord" in q["sql"]]


@pytest.mark.parametrize(("body", "expected"), [
    ({}, "strip"),
    ({"consent_policy": "suppress"}, "suppress"),
])
def test_the_api_creates_postbacks_with_a_consent_policy(owner_api, app, body, expected):
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": "https://network.example/pb?d={device_id}", **body}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["postback"]["consent_policy"] == expected


def test_the_api_changes_a_postbacks_consent_policy(owner_api, app):
    postback = make_postback(app, "https://network.example/pb")
    response = owner_api.put(f"/api/v1/postbacks/{postback.id}",
                             {"consent_policy": "suppress"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["postback"]["consent_policy"] == "suppress"
    postback.refresh_from_db()
    assert postback.consent_policy == "suppress"


@pytest.mark.parametrize("value", ["drop", "", None, 1, ["strip"]])
def test_a_bad_consent_policy_is_a_400(owner_api, app, value):
    response = owner_api.post("/api/v1/postbacks", {
        "app_id": str(app.id), "media_source": "network_a",
        "postback_url": "https://network.example/pb", "consent_policy": value}, format="json")
    assert response.status_code == 400
    assert "consent_policy" in response.json()["error"]["details"]


def test_a_new_install_without_a_device_id_costs_no_consent_lookup(app):
    make_postback(app, "https://network.example/pb")
    with CaptureQueriesContext(connection) as queries:
        services.deliveries_for_installs([install_event(app, device_id=None)], WriteBatch())
    assert not [q for q in queries if "consent_consentrecord" in q["sql"]]


def test_a_new_installs_consent_sent_earlier_by_device_id_applies(app, receiver):
    make_postback(app, receiver.url(TEMPLATE))
    consent_services.consent_change(app_id=app.id, device_id="gaid-1234",
                                    consent=parse(DENIED), now=timezone.now())
    publish(install_event(app))
    attempt_all()
    assert query_of(receiver.requests[0])["d"] == ""
