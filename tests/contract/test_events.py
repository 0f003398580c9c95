"""The reference's in-app events: batches with the key in the header or, for beacons, in the
body; revenue recognised from `amount` and `currency`."""

import time
import uuid

from tests.contract.helpers import Caller, click, data, device, error, events, install, purchase


def level_up() -> dict:
    return {"event_name": "level_up", "properties": {"level": 3},
            "timestamp": int(time.time() * 1000), "session_id": str(uuid.uuid4())}


def test_a_batch_is_accepted_and_counted(owner, android):
    gaid = device()
    click(owner.caller, android.id, pid="facebook", c="summer", advertising_id=gaid)
    data(install(owner.caller, android, device_id=gaid), 201)
    assert data(events(owner.caller, android, gaid, level_up(), purchase(4.99)),
                200)["accepted"] == 2


def test_the_key_may_travel_in_the_body_for_beacons(owner, android):
    gaid = device()
    answer = Caller(owner.caller.service).post("events", {
        "app_id": android.id, "device_id": gaid, "sdk_version": "6.1.0",
        "_api_key": android.key, "events": [level_up()]})
    assert data(answer, 200)["accepted"] == 1


def test_a_batch_without_events_or_a_key_is_refused(owner, android):
    assert "events" in error(events(owner.caller, android, device()), 400,
                             "VALIDATION_ERROR")["details"]
    no_events = owner.caller.post("events", {"app_id": android.id, "sdk_version": "6.1.0"},
                                  key=android.key)
    assert "events" in error(no_events, 400, "VALIDATION_ERROR")["details"]
    unsigned = Caller(owner.caller.service).post("events", {
        "app_id": android.id, "sdk_version": "6.1.0", "events": [level_up()]})
    error(unsigned, 401, "UNAUTHORIZED")
