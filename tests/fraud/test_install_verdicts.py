"""Each request-path rule through POST /installs: what the SDK is answered, what is stored,
and what the install API shows (fraud/rules.py, tracking/fraud_gate.py)."""

import time

import pytest

from fraud import services as fraud_services
from fraud import verdict as v
from tests.fraud.helpers import click, install
from tracking.models import Install

pytestmark = pytest.mark.django_db


def stored(response) -> Install:
    return Install.objects.get(id=response.json()["data"]["installId"])


def settings(app, **changes):
    fraud_services.settings_update(app_id=app.id, changes=changes)


def test_a_hijacking_click_seconds_before_the_install_is_blocked_and_answered_organic(
        sdk, app, timing_rules_block):
    click(app, seconds_ago=3)
    response = install(sdk, app)
    answer = response.json()["data"]
    assert response.status_code == 201
    assert (answer["matchType"], answer["isOrganic"], answer["mediaSource"]) == (
        "organic", True, None)
    assert "fraud" not in answer  # never disclosed to the client
    row = stored(response)
    assert row.fraud_status == v.BLOCKED
    [reason] = row.fraud_reasons
    seconds = reason["value"]  # 3, and whatever the machine took to send the install
    assert reason == {"reason": "ctit_anomalies", "value": seconds, "sub_reason": ""}
    assert 3 <= seconds < 10
    assert row.decision["fraud"]["refused"]["media_source"] == "network_a"
    refused = [c for c in row.decision["candidates"] if c.get("method") == "fraud"]
    assert refused[0]["lost_because"] == (f"not eligible: click {seconds} s before install: "
                                          "below the 10 s floor (install hijacking)")


def test_a_hijacked_install_goes_to_the_earlier_honest_click_and_is_flagged(
        sdk, app, timing_rules_block):
    click(app, seconds_ago=3600, source="honest_network")
    click(app, seconds_ago=2, source="hijacker")
    row = stored(install(sdk, app))
    assert (row.media_source, row.is_organic, row.fraud_status) == (
        "honest_network", False, v.FLAGGED)
    assert row.decision["fraud"]["refused"]["media_source"] == "hijacker"


def test_ctit_at_or_above_the_floor_is_clean(sdk, app):
    click(app, seconds_ago=12)
    row = stored(install(sdk, app))
    assert (row.media_source, row.fraud_status, row.fraud_reasons) == (
        "network_a", v.CLEAN, [])


def test_by_default_a_click_a_second_before_its_install_is_credited_and_flagged(sdk, app):
    click(app, seconds_ago=1)
    response = install(sdk, app)
    answer = response.json()["data"]
    assert (answer["matchType"], answer["confidence"], answer["isOrganic"],
            answer["mediaSource"]) == ("device_id", 100, False, "network_a")
    row = stored(response)
    assert (row.media_source, row.fraud_status) == ("network_a", v.FLAGGED)
    assert [r["reason"] for r in row.fraud_reasons] == ["ctit_anomalies"]


def test_by_default_a_device_over_the_hourly_limit_is_credited_and_flagged(sdk, app):
    for n in range(7):
        click(app, seconds_ago=4000 - n, source="spammer")
    row = stored(install(sdk, app))
    assert (row.media_source, row.is_organic, row.fraud_status) == ("spammer", False, v.FLAGGED)
    assert row.fraud_reasons == [{"reason": "too_many_engagements", "value": 7,
                                  "sub_reason": ""}]


def test_an_injected_click_after_install_begin_never_wins(sdk, app):
    click(app, seconds_ago=7200, source="honest_network")
    click(app, seconds_ago=60, source="injector")
    begin = int(time.time()) - 300
    row = stored(install(sdk, app, install_begin_timestamp_server_seconds=begin,
                         referrer_click_timestamp_server_seconds=begin - 3000,
                         install_version="1.2.3"))
    assert row.media_source == "honest_network"
    assert row.fraud_status == v.FLAGGED
    assert row.fraud_reasons[0]["reason"] == "engagement_injection"
    assert 235 <= row.fraud_reasons[0]["value"] <= 245
    assert row.decision["fraud"]["signals"]["install_version"] == "1.2.3"


def test_the_server_install_begin_time_is_preferred_to_the_devices(sdk, app):
    click(app, seconds_ago=60, source="injector")
    now = int(time.time())
    # The device's clock says the install began after the click; Play's server says before.
    row = stored(install(sdk, app, install_begin_timestamp_seconds=now - 10,
                         install_begin_timestamp_server_seconds=now - 300))
    assert (row.fraud_status, row.is_organic) == (v.BLOCKED, True)


def test_an_injected_click_alone_leaves_the_install_blocked_organic(sdk, app):
    click(app, seconds_ago=60, source="injector")
    row = stored(install(sdk, app, install_begin_timestamp_server_seconds=int(time.time()) - 300))
    assert (row.is_organic, row.fraud_status, row.fraud_reasons[0]["reason"]) == (
        True, v.BLOCKED, "engagement_injection")


def test_too_many_engagements_make_a_devices_later_clicks_ineligible(
        sdk, app, timing_rules_block):
    settings(app, too_many_engagements_per_hour=3)
    for n in range(5):
        click(app, seconds_ago=4000 - n, source="spammer")
    row = stored(install(sdk, app))
    assert (row.is_organic, row.fraud_status) == (True, v.BLOCKED)
    assert row.fraud_reasons == [{"reason": "too_many_engagements", "value": 5,
                                  "sub_reason": ""}]


def test_engagements_within_the_limit_are_clean(sdk, app):
    for n in range(3):
        click(app, seconds_ago=4000 - n)
    assert stored(install(sdk, app)).fraud_status == v.CLEAN


def test_a_flooding_sources_clicks_are_not_eligible_that_day(sdk, app):
    from django.utils import timezone

    from fraud.models import SourceFlag

    SourceFlag.objects.create(app=app, media_source="flooder", day=timezone.now().date(),
                              mode=v.BLOCK, stats={})
    click(app, seconds_ago=5000, source="flooder")
    row = stored(install(sdk, app))
    assert (row.is_organic, row.fraud_status) == (True, v.BLOCKED)
    assert row.fraud_reasons == [{"reason": "click_flood", "value": None,
                                  "sub_reason": "flooder"}]


def test_click_flood_in_flag_mode_credits_and_flags(sdk, app):
    from django.utils import timezone

    from fraud.models import SourceFlag

    settings(app, click_flood_mode=v.FLAG)
    SourceFlag.objects.create(app=app, media_source="flooder", day=timezone.now().date(),
                              mode=v.FLAG, stats={})
    click(app, seconds_ago=5000, source="flooder")
    row = stored(install(sdk, app))
    assert (row.media_source, row.fraud_status) == ("flooder", v.FLAGGED)


def test_a_test_device_is_never_blocked(sdk, app):
    settings(app, test_devices=["GAID-1"])
    click(app, seconds_ago=3)
    row = stored(install(sdk, app))
    assert (row.media_source, row.fraud_status) == ("network_a", v.FLAGGED)


def test_every_rule_off_leaves_the_waterfall_as_it_was(sdk, app):
    settings(app, ctit_anomalies_mode=v.OFF, engagement_injection_mode=v.OFF)
    click(app, seconds_ago=3)
    row = stored(install(sdk, app, install_begin_timestamp_server_seconds=int(time.time()) - 60))
    assert (row.media_source, row.fraud_status) == ("network_a", v.CLEAN)


def test_the_install_api_shows_the_verdict_and_its_reasons(sdk, app, owner_api, timing_rules_block):
    click(app, seconds_ago=3)
    row = stored(install(sdk, app))
    detail = owner_api.get(f"/api/v1/installs/{row.id}").json()["data"]["install"]
    assert detail["fraud"] == {"status": "blocked", "reasons": [
        {"reason": "ctit_anomalies", "value": row.fraud_reasons[0]["value"],
         "sub_reason": ""}]}


@pytest.mark.parametrize(("field", "value"), [
    ("install_begin_timestamp_server_seconds", "yesterday"),
    ("install_begin_timestamp_seconds", -1),
    ("referrer_click_timestamp_seconds", 1.5),
    ("referrer_click_timestamp_server_seconds", True),
    ("install_begin_timestamp_server_seconds", 10**12),
    ("install_version", "x" * 65),
    ("install_version", 12),
])
def test_a_bad_play_signal_is_a_400_naming_it(sdk, app, field, value):
    response = install(sdk, app, **{field: value})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert field in response.json()["error"]["details"]
    assert not Install.objects.exists()


def test_zero_or_null_play_times_are_absent(sdk, app):
    click(app, seconds_ago=60)
    row = stored(install(sdk, app, install_begin_timestamp_server_seconds=0,
                         install_begin_timestamp_seconds=None))
    assert (row.media_source, row.fraud_status) == ("network_a", v.CLEAN)
