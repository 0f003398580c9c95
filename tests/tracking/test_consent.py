"""Consent-aware fingerprinting (docs/apple.md, "Consent-aware fingerprinting"): on iOS the
fingerprint tier runs only for installs whose user authorized tracking, unless the app's
`ios_fingerprinting` policy is `always`. The rule first, pure and without a database; then through
the HTTP API, the app's policy as the API and the install path see it."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps_registry.models import App, IosFingerprinting
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import IPHONE_SAFARI, PUBLIC_IP, click_through, install_body
from tracking import attribution
from tracking.attribution import (
    FINGERPRINT_SKIPPED,
    IOS_FINGERPRINTING_ALWAYS,
    IOS_FINGERPRINTING_POLICIES,
    IOS_FINGERPRINTING_WITH_CONSENT,
    attribute,
    fingerprint_allowed,
    tracking_authorized,
)
from tracking.models import Install
from tracking.referrer import ReferrerInfo
from tracking.trail_words import Step, trail_in_words
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
IPHONE = dict(platform="ios", ip="81.2.69.7", os_family="iOS", os_version="17.2",
              device_model="iPhone15,2", language="en-US")
SDK_USER_AGENT = "MyApp/1.0 CFNetwork/1474 Darwin/23.0.0"


def iphone(**overrides) -> InstallSignals:
    return InstallSignals(**{**IPHONE, **overrides})


def click(minutes_ago=30, **overrides):
    values = dict(id=uuid.uuid4(), clicked_at=NOW - timedelta(minutes=minutes_ago),
                  media_source="snap", campaign_id="s1", ip="81.2.69.7",
                  fingerprint=str(uuid.uuid4()), os_family="iOS", os_version="17.2",
                  device_model="iPhone", accept_language="en-US")
    values.update(overrides)
    return ClickCandidate(**values)


def run(signals, policy=None, **kwargs):
    values = dict(installed_at=NOW, signals=signals, referrer=None, referrer_click=None,
                  device_candidates=[], fingerprint_candidates=[click()])
    if policy is not None:
        values["ios_fingerprinting"] = policy
    values.update(kwargs)
    return attribute(**values)


def fingerprint_step(verdict) -> dict:
    return next(s for s in verdict.trail["steps"] if s["method"] == "fingerprint")


# --- The rule -------------------------------------------------------------------------------

@pytest.mark.parametrize("status", ["denied", "restricted", "not_determined"])
def test_an_iphone_without_tracking_consent_is_not_fingerprinted_by_default(status):
    verdict = run(iphone(att_status=status))
    assert (verdict.match_type, verdict.media_source, verdict.click) == ("organic", None, None)
    assert fingerprint_step(verdict) == {"method": "fingerprint", "outcome": FINGERPRINT_SKIPPED,
                                         "att_status": status, "network_clicks": 1}
    assert verdict.trail["candidates"] == []  # nothing was compared, so nothing lost


def test_the_skipped_step_reads_as_the_issue_says():
    assert FINGERPRINT_SKIPPED == "fingerprint skipped: tracking not authorized"


def test_an_iphone_that_authorized_tracking_is_fingerprinted():
    verdict = run(iphone(att_status="authorized"))
    assert (verdict.match_type, verdict.media_source) == ("fingerprint", "snap")


def test_an_app_that_fingerprints_always_matches_an_iphone_without_consent():
    verdict = run(iphone(att_status="denied"), policy=IOS_FINGERPRINTING_ALWAYS)
    assert verdict.match_type == "fingerprint"
    assert fingerprint_step(verdict)["outcome"] == "matched"


def test_an_older_sdk_without_a_status_counts_as_consent_only_with_a_usable_idfa():
    # iOS hands out the IDFA only after the user authorized tracking.
    with_idfa = iphone(device_id="6d92078a-8246-4ba4-ae5b-76104861e7dc")
    assert tracking_authorized(with_idfa)
    assert run(with_idfa).match_type == "fingerprint"
    for device_id in (None, "00000000-0000-0000-0000-000000000000"):
        verdict = run(iphone(device_id=device_id))
        assert verdict.match_type == "organic"
        assert fingerprint_step(verdict)["att_status"] is None


def test_a_status_sent_outranks_the_idfa():
    denied_with_idfa = iphone(att_status="denied", device_id="6d92078a-8246-4ba4-ae5b-76104861e7dc")
    assert not tracking_authorized(denied_with_idfa)


@pytest.mark.parametrize("platform,os_family", [("android", "Android"), ("web", "")])
def test_android_and_web_installs_are_unaffected(platform, os_family):
    signals = InstallSignals(platform=platform, ip="81.2.69.7", os_family=os_family,
                             os_version="14", device_model="SM-S918B", language="en-US",
                             att_status="denied")
    assert tracking_authorized(signals)
    assert fingerprint_allowed(signals, ios_fingerprinting=IOS_FINGERPRINTING_WITH_CONSENT)


def test_an_unknown_policy_reads_as_the_default():
    assert not fingerprint_allowed(iphone(att_status="denied"), ios_fingerprinting="sometimes")
    assert run(iphone(att_status="denied"), policy="").match_type == "organic"


def test_the_device_id_tier_still_matches_without_consent():
    # An IDFA with a denied status: a stale SDK value, still a deterministic match.
    own = click(advertising_id="idfa-1")
    verdict = run(iphone(att_status="denied", device_id="idfa-1"), device_candidates=[own],
                  fingerprint_candidates=[own, click(5)])
    assert (verdict.match_type, verdict.click) == ("device_id", own)
    assert all(s["outcome"] != FINGERPRINT_SKIPPED for s in verdict.trail["steps"])


def test_the_install_referrer_tier_still_matches_without_consent():
    verdict = run(iphone(att_status="denied"),
                  referrer=ReferrerInfo(click_id=None, media_source="apple_search_ads",
                                        campaign_id="brand"))
    assert (verdict.match_type, verdict.media_source) == ("install_referrer",
                                                          "apple_search_ads")


def test_the_skipped_step_counts_only_clicks_of_the_window():
    stale = click(minutes_ago=8 * 24 * 60)
    verdict = run(iphone(att_status="denied"), fingerprint_candidates=[stale, click(), click(9)])
    assert fingerprint_step(verdict)["network_clicks"] == 2


def test_the_policies_are_the_apps_choices():
    assert tuple(IosFingerprinting.values) == IOS_FINGERPRINTING_POLICIES
    assert App._meta.get_field("ios_fingerprinting").default == IOS_FINGERPRINTING_WITH_CONSENT


# --- The trail in words ---------------------------------------------------------------------

def test_the_console_says_why_the_fingerprint_tier_was_skipped():
    verdict = run(iphone(att_status="denied"), fingerprint_candidates=[click(), click(9)])
    told = trail_in_words(verdict.trail, installed_at=NOW)
    assert told.summary == ("Organic: no usable device id; "
                            "fingerprint skipped: tracking not authorized.")
    assert told.steps[2] == Step("Fingerprint", (
        "Skipped: tracking not authorized (the user denied tracking), and the app does not "
        "fingerprint iOS installs without consent, as Apple's policy asks; 2 clicks from this "
        "install's network were not compared."))


def test_the_console_names_an_older_sdk_that_sent_no_status():
    verdict = run(iphone(), fingerprint_candidates=[])
    told = trail_in_words(verdict.trail, installed_at=NOW)
    assert told.steps[2] == Step("Fingerprint", (
        "Skipped: tracking not authorized (the SDK sent no tracking status and no IDFA), and "
        "the app does not fingerprint iOS installs without consent, as Apple's policy asks."))


# --- Through the API ------------------------------------------------------------------------

@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, platform="ios", package_name=None,
                      bundle_id="com.example.ios")


@pytest.fixture
def ios_sdk(ios_app):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(ios_app))
    return client


def iphone_install(api, sdk, app, **body):
    """An iPhone clicks a snap ad in Safari, then the app reports its install from the same
    address."""
    click_through(api, app, user_agent=IPHONE_SAFARI, pid="snap")
    return sdk.post("/api/v1/installs", install_body(
        app, platform="ios", os_version="17.2", device_model="iPhone15,2", language="en-US",
        **body), format="json", HTTP_USER_AGENT=SDK_USER_AGENT, REMOTE_ADDR=PUBLIC_IP)


@pytest.mark.django_db
def test_a_new_app_follows_apples_policy(owner_api):
    response = owner_api.post("/api/v1/apps", {"name": "Runner", "platform": "ios",
                                               "bundle_id": "com.example.runner"}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["app"]["ios_fingerprinting"] == "never_without_consent"


@pytest.mark.django_db
def test_a_denied_install_is_organic_and_its_trail_says_why(api, ios_app, ios_sdk):
    response = iphone_install(api, ios_sdk, ios_app, att_status="denied")
    assert response.status_code == 201
    assert (response.json()["data"]["matchType"], response.json()["data"]["mediaSource"]) == (
        "organic", None)
    install = Install.objects.get()
    assert (install.att_status, install.is_organic) == ("denied", True)
    assert install.decision["steps"][-1] == {"method": "fingerprint",
                                             "outcome": FINGERPRINT_SKIPPED,
                                             "att_status": "denied", "network_clicks": 1}


@pytest.mark.django_db
def test_an_older_sdk_without_status_or_idfa_is_not_fingerprinted(api, ios_app, ios_sdk):
    response = iphone_install(api, ios_sdk, ios_app)
    assert response.json()["data"]["matchType"] == "organic"
    assert Install.objects.get().decision["steps"][-1]["outcome"] == FINGERPRINT_SKIPPED


@pytest.mark.django_db
def test_an_owner_who_chooses_always_gets_the_fingerprint_match(api, owner_api, ios_app,
                                                                 ios_sdk):
    changed = owner_api.put(f"/api/v1/apps/{ios_app.id}", {"ios_fingerprinting": "always"},
                            format="json")
    assert changed.status_code == 200
    assert changed.json()["data"]["app"]["ios_fingerprinting"] == "always"
    response = iphone_install(api, ios_sdk, ios_app, att_status="not_determined")
    assert (response.json()["data"]["matchType"], response.json()["data"]["mediaSource"]) == (
        "fingerprint", "snap")


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["sometimes", "", None, 1, ["always"], {"a": 1}])
def test_an_unknown_policy_is_refused_with_the_field_named(owner_api, ios_app, value):
    response = owner_api.put(f"/api/v1/apps/{ios_app.id}", {"ios_fingerprinting": value},
                             format="json")
    assert response.status_code == 400
    assert "ios_fingerprinting" in response.json()["error"]["details"]
    ios_app.refresh_from_db()
    assert ios_app.ios_fingerprinting == "never_without_consent"


@pytest.mark.django_db
def test_an_android_install_of_the_same_network_is_still_fingerprinted(api, app, sdk):
    from tests.tracking.helpers import ANDROID_SDK

    click_through(api, app, pid="tiktok")
    response = sdk.post("/api/v1/installs", install_body(
        app, os_version="14", device_model="SM-S918B", language="en-US"), format="json",
        HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)
    assert (response.json()["data"]["matchType"], response.json()["data"]["mediaSource"]) == (
        "fingerprint", "tiktok")


@pytest.mark.django_db
@pytest.mark.redis
def test_the_install_path_reads_the_policy_from_memory_and_a_change_at_once(
        api, owner_api, ios_app, ios_sdk, live_local_caches):
    from apps_registry import selectors
    from tests.helpers import served_from_memory

    assert served_from_memory(lambda: selectors.app_target(app_id=ios_app.id))
    click_through(api, ios_app, user_agent=IPHONE_SAFARI, pid="snap")
    with CaptureQueriesContext(connection) as queries:
        response = ios_sdk.post("/api/v1/installs", install_body(
            ios_app, platform="ios", os_version="17.2", device_model="iPhone15,2",
            language="en-US", att_status="denied"), format="json",
            HTTP_USER_AGENT=SDK_USER_AGENT, REMOTE_ADDR=PUBLIC_IP)
    assert response.json()["data"]["matchType"] == "organic"
    app_table = App._meta.db_table
    assert not [q for q in queries if app_table in q["sql"]]

    owner_api.put(f"/api/v1/apps/{ios_app.id}", {"ios_fingerprinting": "always"}, format="json")
    assert selectors.app_target(app_id=ios_app.id).ios_fingerprinting == "always"
    response = iphone_install(api, ios_sdk, ios_app, att_status="denied",
                              device_id="second-iphone")
    assert response.json()["data"]["matchType"] == "fingerprint"


def test_the_service_asks_for_the_policy_only_when_it_can_matter(monkeypatch):
    from tracking.services import installs

    asked = []
    monkeypatch.setattr(installs.app_selectors, "app_target",
                        lambda *, app_id: asked.append(app_id))
    app_id = uuid.uuid4()
    assert installs._ios_fingerprinting(app_id, iphone(att_status="authorized")) == (
        attribution.IOS_FINGERPRINTING_WITH_CONSENT)
    assert installs._ios_fingerprinting(app_id, InstallSignals(platform="android")) == (
        attribution.IOS_FINGERPRINTING_WITH_CONSENT)
    assert asked == []
    # An app deleted meanwhile: the default.
    assert installs._ios_fingerprinting(app_id, iphone(att_status="denied")) == (
        attribution.IOS_FINGERPRINTING_WITH_CONSENT)
    assert asked == [app_id]
