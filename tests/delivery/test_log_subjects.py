"""Each delivery log entry names the install and the event it carries (docs/delivery.md,
"Reading the logs"): installs, events, re-engagements and re-attributions, through postbacks
and webhooks, sent or not yet tried; a consent-stripped postback whose values leave the install
id out; test sends name nothing; entries logged before the log kept `install_id`."""

import json
import uuid

import pytest

from delivery.models import Delivery
from tests.delivery.helpers import (
    attempt_all,
    event_tracked,
    install_event,
    make_postback,
    make_webhook,
    publish,
    reengaged,
)

pytestmark = pytest.mark.django_db


def logs(owner_api, app, kind):
    response = owner_api.get(f"/api/v1/{kind}/logs?app_id={app.id}")
    assert response.status_code == 200
    return response.json()["data"]["logs"]


def test_webhook_entries_name_the_install_and_the_event(owner_api, app, tls_receiver):
    make_webhook(app, tls_receiver.url("/hook"))
    install, event, again = (install_event(app), event_tracked(app, event_id=42),
                             reengaged(app))
    for fact in (install, event, again):  # one kind of fact a publication
        publish(fact)
    attempt_all()
    named = {entry["event_type"]: (entry["install_id"], entry["event_id"])
             for entry in logs(owner_api, app, "webhooks")}
    assert named == {"install": (str(install.install_id), None),
                     "event": (str(event.install_id), 42),
                     "re-engagement": (str(again.install_id), None)}
    assert {str(row) for row in Delivery.objects.values_list("install_id", flat=True)} == {
        str(install.install_id), str(event.install_id), str(again.install_id)}


def test_an_event_without_an_install_names_only_the_event(owner_api, app, tls_receiver):
    make_webhook(app, tls_receiver.url("/hook"))
    publish(event_tracked(app, event_id=7, install_id=None, media_source=None))
    [entry] = logs(owner_api, app, "webhooks")  # not yet tried: named all the same
    assert entry["id"] is None
    assert (entry["install_id"], entry["event_id"]) == (None, 7)


def test_a_postback_stripped_for_consent_still_names_its_install(owner_api, app, receiver):
    postback = make_postback(app, receiver.url("/pb?i={install_id}"))
    install = install_event(app)
    publish(install)
    delivery = Delivery.objects.get()
    values = json.loads(delivery.body)
    Delivery.objects.filter(id=delivery.id).update(  # as strip leaves it: no install id sent
        body=json.dumps({**values, "install_id": None}))
    attempt_all()
    [entry] = logs(owner_api, app, "postbacks")
    assert entry["postback_id"] == str(postback.id)
    assert entry["install_id"] == str(install.install_id)
    assert receiver.requests[0].path == "/pb?i="


def test_a_test_send_names_nothing(owner_api, app, tls_receiver):
    webhook, _ = make_webhook(app, tls_receiver.url("/hook"))
    assert owner_api.post(f"/api/v1/webhooks/{webhook.id}/test").status_code == 200
    [entry] = logs(owner_api, app, "webhooks")
    assert entry["is_test"] is True
    assert (entry["install_id"], entry["event_id"]) == (None, None)


def test_entries_logged_before_the_column_name_what_their_source_is(owner_api, app, receiver):
    make_postback(app, receiver.url("/pb"), events=("install", "event"))
    install = install_event(app)
    publish(install)
    publish(event_tracked(app, event_id=9))
    Delivery.objects.update(install_id=None)  # as rows written by the version before
    named = {entry["event_type"]: (entry["install_id"], entry["event_id"])
             for entry in logs(owner_api, app, "postbacks")}
    assert named == {"install": (str(install.install_id), None), "event": (None, 9)}
    assert uuid.UUID(named["install"][0])
