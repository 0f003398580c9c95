"""POST /api/v1/installs: attribution through the HTTP API, repeats and re-engagements."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from apps_registry.models import ApiKey
from attribution_site import domain_events
from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import (
    ANDROID_SDK,
    IPHONE_SAFARI,
    PUBLIC_IP,
    click_through,
    install_body,
)
from tracking.models import Click, Install, Reengagement

pytestmark = pytest.mark.django_db


@pytest.fixture
def published():
    """Every domain event published, as an observer that waits for the commit sees it."""
    seen: list = []

    def observe(events, batch):
        batch.after_commit(lambda: seen.extend(events))

    for kind in (domain_events.InstallAttributed, domain_events.InstallReengaged,
                 domain_events.EventTracked):
        domain_events.subscribe(kind, observe)
    yield seen
    for kind in (domain_events.InstallAttributed, domain_events.InstallReengaged,
                 domain_events.EventTracked):
        domain_events.unsubscribe(kind, observe)


def post_install(sdk, app, **overrides):
    return sdk.post("/api/v1/installs", install_body(app, **overrides), format="json",
                    HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)


def test_install_referrer_naming_our_click_is_a_100_match(api, sdk, app):
    location = click_through(api, app, pid="facebook", c="summer")["Location"]
    referrer = parse_qs(urlsplit(location).query)["referrer"][0]
    response = post_install(sdk, app, install_referrer=referrer, device_id="gaid-9")
    assert response.status_code == 201
    data = response.json()["data"]
    click = Click.objects.get()
    assert data == {"matchType": "install_referrer", "confidence": 100.0,
                    "mediaSource": "facebook", "campaignId": "summer", "isOrganic": False,
                    "attributedTouchTime": int(click.clicked_at.timestamp() * 1000),
                    "installId": data["installId"], "deepLink": None}
    install = Install.objects.get(id=data["installId"])
    assert install.click_id == click.id and install.device_id == "gaid-9"


def test_device_id_match_uses_the_latest_click(api, sdk, app):
    click_through(api, app, pid="old", advertising_id="GAID-1")
    click_through(api, app, pid="new", advertising_id="GAID-1")
    data = post_install(sdk, app, device_id="gaid-1").json()["data"]
    assert (data["matchType"], data["confidence"], data["mediaSource"]) == (
        "device_id", 100.0, "new")


def test_fingerprint_match_from_the_same_address_and_device(api, sdk, app):
    click_through(api, app, pid="tiktok", c="t1")
    data = post_install(sdk, app, os_version="14", device_model="SM-S918B",
                        language="en-US").json()["data"]
    assert data["matchType"] == "fingerprint"
    assert 60 <= data["confidence"] <= 80
    assert data["mediaSource"] == "tiktok"


def test_no_click_is_organic_with_nulls(sdk, app):
    response = post_install(sdk, app, device_id="gaid-2")
    data = response.json()["data"]
    assert response.status_code == 201
    assert data["matchType"] == "organic" and data["isOrganic"] is True
    assert (data["mediaSource"], data["campaignId"], data["confidence"],
            data["attributedTouchTime"]) == (None, None, 0, None)


def test_click_older_than_the_window_leaves_the_install_organic(api, sdk, app):
    click_through(api, app, pid="old", advertising_id="gaid-3")
    Click.objects.update(clicked_at=timezone.now() - timedelta(days=7, minutes=1))
    assert post_install(sdk, app, device_id="gaid-3").json()["data"]["matchType"] == "organic"


def test_another_apps_clicks_never_match(api, sdk, app):
    other = AppFactory(organization=app.organization)
    click_through(api, other, pid="x", advertising_id="gaid-4")
    assert post_install(sdk, app, device_id="gaid-4").json()["data"]["isOrganic"] is True


def test_install_stores_its_decision_trail(api, sdk, app, owner_api):
    click_through(api, app, pid="fb", advertising_id="gaid-5")
    click_through(api, app, pid="fb2", advertising_id="gaid-5")
    install_id = post_install(sdk, app, device_id="gaid-5").json()["data"]["installId"]
    response = owner_api.get(f"/api/v1/installs/{install_id}")
    assert response.status_code == 200
    decision = response.json()["data"]["install"]["decision"]
    assert decision["method"] == "device_id"
    assert decision["candidates"][0]["lost_because"] == "a later click of the same device won"
    listed = owner_api.get(f"/api/v1/installs?app_id={app.id}&device_id=GAID-5").json()
    assert [i["id"] for i in listed["data"]["installs"]] == [install_id]


@pytest.mark.parametrize("device_id", ["gaid\x00", "g" * 65])
def test_listing_by_a_device_id_no_install_can_have_is_empty_not_an_error(sdk, app, owner_api,
                                                                          device_id):
    post_install(sdk, app, device_id="gaid-5")
    response = owner_api.get("/api/v1/installs", {"app_id": str(app.id), "device_id": device_id})
    assert response.status_code == 200
    assert response.json()["data"]["installs"] == []


def test_installs_read_by_another_organization_are_not_found(sdk, app, outsider_api):
    install_id = post_install(sdk, app, device_id="gaid-6").json()["data"]["installId"]
    assert outsider_api.get(f"/api/v1/installs/{install_id}").status_code == 404
    assert outsider_api.get(f"/api/v1/installs?app_id={app.id}").status_code == 404


def test_installs_list_validates_its_parameters(owner_api):
    assert owner_api.get("/api/v1/installs").status_code == 400
    response = owner_api.get("/api/v1/installs?app_id=nope")
    assert response.json()["error"]["details"]["app_id"] == ["Must be a UUID."]


def test_a_repeat_install_returns_the_stored_result_and_triggers_nothing(
        sdk, app, published, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = post_install(sdk, app, device_id="gaid-7")
        second = post_install(sdk, app, device_id="GAID-7")
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["data"] == second.json()["data"]
    assert Install.objects.count() == 1
    assert len(published) == 1


def test_a_click_after_attribution_is_a_re_engagement(
        api, sdk, app, published, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = post_install(sdk, app, device_id="gaid-8").json()["data"]
        click_through(api, app, pid="retarget", c="winback", advertising_id="gaid-8")
        again = post_install(sdk, app, device_id="gaid-8")
        once_more = post_install(sdk, app, device_id="gaid-8")
    assert again.status_code == 200
    body = again.json()["data"]
    assert body["installId"] == first["installId"] and body["isOrganic"] is True
    assert body["reengagement"]["mediaSource"] == "retarget"
    assert "reengagement" not in once_more.json()["data"]
    stored = Reengagement.objects.get()
    assert (stored.media_source, stored.campaign_id) == ("retarget", "winback")
    kinds = [type(e).__name__ for e in published]
    assert kinds == ["InstallAttributed", "InstallReengaged"]
    assert published[1].original_media_source is None


def test_each_new_click_after_the_last_attribution_is_one_more_re_engagement(
        api, sdk, app, published, django_capture_on_commit_callbacks):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with django_capture_on_commit_callbacks(execute=True):
        post_install(sdk, app, device_id="gaid-9")
        click_through(api, app, pid="first", advertising_id="gaid-9")
        assert post_install(sdk, app, device_id="gaid-9").json()["data"]["reengagement"]
        with CaptureQueriesContext(connection) as queries:
            quiet = post_install(sdk, app, device_id="gaid-9")
        tried = [q for q in queries if "INSERT" in q["sql"]]  # before a request resets them
        click_through(api, app, pid="second", advertising_id="gaid-9")
        second = post_install(sdk, app, device_id="gaid-9").json()["data"]
    assert "reengagement" not in quiet.json()["data"]
    # Judged from the latest re-engagement, not the install: nothing is even tried.
    assert tried == []
    assert second["reengagement"]["mediaSource"] == "second"
    assert list(Reengagement.objects.order_by("clicked_at")
                .values_list("media_source", flat=True)) == ["first", "second"]
    assert [type(e).__name__ for e in published] == [
        "InstallAttributed", "InstallReengaged", "InstallReengaged"]


def test_every_new_install_publishes_install_attributed_after_commit(
        api, sdk, app, published, django_capture_on_commit_callbacks):
    click_through(api, app, pid="fb", c="c1", advertising_id="gaid-10")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        data = post_install(sdk, app, device_id="gaid-10").json()["data"]
    assert published == []  # nothing before the commit
    for callback in callbacks:
        callback()
    organic = post_install(sdk, app, device_id="gaid-11")
    assert organic.status_code == 201
    event = published[0]
    assert (event.install_id.hex, event.media_source, event.campaign_id, event.match_type,
            event.is_organic) == (data["installId"].replace("-", ""), "fb", "c1", "device_id",
                                  False)


@pytest.mark.parametrize("overrides,field", [
    ({"platform": "windows"}, "platform"),
    ({"sdk_version": None}, "sdk_version"),
    ({"app_id": "not-a-uuid"}, "app_id"),
    ({"app_id": 12}, "app_id"),
    ({"device_id": 42}, "device_id"),
    ({"install_referrer": ["x"]}, "install_referrer"),
])
def test_invalid_install_bodies_are_rejected_with_the_field(sdk, app, overrides, field):
    response = post_install(sdk, app, **overrides)
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert Install.objects.count() == 0


def test_missing_sdk_version_is_a_validation_error(sdk, app):
    body = install_body(app)
    del body["sdk_version"]
    response = sdk.post("/api/v1/installs", body, format="json")
    assert response.status_code == 400
    assert "sdk_version" in response.json()["error"]["details"]


def test_unknown_fields_from_newer_sdks_are_ignored(sdk, app):
    assert post_install(sdk, app, battery_level=0.5).status_code == 201


def test_malformed_json_is_a_validation_error(sdk):
    response = sdk.post("/api/v1/installs", data="{oops", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("key", [None, "ak_0000000000000000_nope", "rubbish"])
def test_bad_keys_are_unauthorized(api, app, key):
    if key:
        api.credentials(HTTP_X_API_KEY=key)
    response = api.post("/api/v1/installs", install_body(app), format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_a_revoked_key_is_unauthorized_at_once(sdk, app, owner_api,
                                               django_capture_on_commit_callbacks):
    assert post_install(sdk, app, device_id="a").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        owner_api.delete(f"/api/v1/keys/{ApiKey.objects.get().id}")
    assert post_install(sdk, app, device_id="b").status_code == 401


def test_an_expired_key_is_unauthorized(api, app):
    key = issue_key(app, expires_at=timezone.now() + timedelta(minutes=1))
    ApiKey.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    api.credentials(HTTP_X_API_KEY=key)
    assert api.post("/api/v1/installs", install_body(app), format="json").status_code == 401


def test_another_apps_id_is_forbidden(sdk, app):
    other = AppFactory(organization=app.organization)
    response = post_install(sdk, other)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "FORBIDDEN"
    assert Install.objects.count() == 0


def test_a_read_only_key_is_forbidden(api, app):
    api.credentials(HTTP_X_API_KEY=issue_key(app, permissions=["read"]))
    assert api.post("/api/v1/installs", install_body(app), format="json").status_code == 403


def test_the_keys_rate_limit_is_enforced(api, app, one_rate_window):
    api.credentials(HTTP_X_API_KEY=issue_key(app, rate_limit=2))
    statuses = [api.post("/api/v1/installs", install_body(app, device_id=f"d{n}"),
                         format="json").status_code for n in range(3)]
    assert statuses == [201, 201, 429]
    blocked = api.post("/api/v1/installs", install_body(app), format="json")
    assert blocked.json()["error"]["code"] == "RATE_LIMITED"
    assert blocked["Retry-After"] == "1"


@pytest.mark.parametrize("platform", ["ios", "web"])
def test_an_android_apps_install_on_another_platform_is_refused(sdk, app, platform):
    response = post_install(sdk, app, platform=platform, device_id="gaid-1")
    assert response.status_code == 400
    assert response.json() == {"success": False, "error": {
        "code": "VALIDATION_ERROR",
        "message": f"The install says platform {platform}, but this app's platform is android.",
        "details": {"platform": ["Must be android: this app's platform is android."]}}}
    assert not Install.objects.exists()


@pytest.mark.parametrize(("app_platform", "identifier", "refused"), [
    ("web", {"domain": "shop.example"}, ("ios", "android")),
    ("ios", {"bundle_id": "com.example.shop"}, ("android", "web")),
])
def test_web_and_ios_apps_take_installs_of_their_own_platform_only(
        owner, app_platform, identifier, refused):
    from rest_framework.test import APIClient

    app = AppFactory(organization=owner.organization, platform=app_platform, package_name=None,
                     **identifier)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(app))
    for platform in refused:
        response = post_install(client, app, platform=platform, device_id=f"d-{platform}")
        assert response.status_code == 400
        assert response.json()["error"]["details"] == {"platform": [
            f"Must be {app_platform}: this app's platform is {app_platform}."]}
    accepted = post_install(client, app, platform=app_platform, device_id="d-own")
    assert accepted.status_code == 201
    assert list(Install.objects.values_list("platform", "device_id")) == [
        (app_platform, "d-own")]


def test_an_event_batch_takes_no_platform_so_a_stray_one_changes_nothing(sdk, app):
    # Events carry no platform (an event's platform is its install's): a `platform` key is
    # ignored like any field a newer SDK might send, not a way around the install check.
    response = sdk.post("/api/v1/events", {
        "app_id": str(app.id), "sdk_version": "1", "device_id": "gaid-1", "platform": "ios",
        "events": [{"event_name": "x", "properties": {}, "timestamp": 1_795_000_000_000,
                    "session_id": "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}]}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["accepted"] == 1


def test_an_oversized_body_is_rejected(sdk, app, settings):
    settings.SDK_MAX_BODY_BYTES = 2048
    response = post_install(sdk, app, install_referrer="x" * 4000)
    assert response.status_code == 400
    assert "body" in response.json()["error"]["details"]


def test_iphone_click_matches_ios_install_by_fingerprint_with_tracking_consent(api, sdk_key,
                                                                               owner):
    ios = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     bundle_id="com.example.ios")
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_X_API_KEY=issue_key(ios))
    click_through(api, ios, user_agent=IPHONE_SAFARI, pid="snap")
    response = client.post("/api/v1/installs", install_body(
        ios, platform="ios", os_version="17.2", device_model="iPhone15,2", language="en-US",
        att_status="authorized"),
        format="json", HTTP_USER_AGENT="MyApp/1.0 CFNetwork/1474 Darwin/23.0.0",
        REMOTE_ADDR=PUBLIC_IP)
    data = response.json()["data"]
    assert (data["matchType"], data["mediaSource"]) == ("fingerprint", "snap")


@pytest.mark.parametrize("path,extra", [
    ("/api/v1/installs", {"platform": "ios"}),
    ("/api/v1/events", {"events": [{"event_name": "x", "properties": {},
                                    "timestamp": 1_795_000_000_000,
                                    "session_id": "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"}]}),
])
def test_a_device_id_longer_than_64_characters_is_a_validation_error(sdk, app, path, extra):
    response = sdk.post(path, {"app_id": str(app.id), "sdk_version": "1", "device_id": "d" * 65,
                               **extra}, format="json")
    assert response.status_code == 400
    assert "device_id" in response.json()["error"]["details"]


@pytest.mark.postgres
def test_an_install_and_its_delivery_rows_are_one_statement(sdk, app, owner_api,
                                                           django_capture_on_commit_callbacks):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from delivery.models import Delivery

    owner_api.post("/api/v1/webhooks", {"app_id": str(app.id), "events": ["install"],
                                        "url": "https://hooks.example.com/x"}, format="json")
    post_install(sdk, app, device_id="warm-up")  # the key and the targets are read once
    with CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks() as callbacks:
        response = post_install(sdk, app, device_id="gaid-77")
    assert response.status_code == 201
    # (Inside the test's transaction the batch takes a savepoint; in autocommit it does not.)
    writes = [q["sql"] for q in queries
              if not q["sql"].startswith(("SELECT", "(SELECT", "SAVEPOINT", "RELEASE"))]
    assert len(writes) == 1
    assert writes[0].startswith('WITH w0 AS (INSERT INTO "tracking_install"')
    assert 'INSERT INTO "delivery_delivery"' in writes[0]
    assert len(callbacks) == 1  # the delivery's message, after the statement
    install_id = response.json()["data"]["installId"]
    assert Delivery.objects.filter(source_id=install_id, kind="webhook").count() == 1


@pytest.mark.redis
def test_a_webhook_added_between_installs_gets_the_next_one(sdk, app, owner_api,
                                                            live_local_caches):
    from delivery import selectors
    from delivery.models import Delivery
    from tests.helpers import served_from_memory

    assert post_install(sdk, app, device_id="gaid-1").status_code == 201
    assert served_from_memory(lambda: selectors.delivery_targets(app_ids=[app.id]))
    owner_api.post("/api/v1/webhooks", {"app_id": str(app.id), "events": ["install"],
                                        "url": "https://hooks.example.com/x"}, format="json")
    second = post_install(sdk, app, device_id="gaid-2").json()["data"]["installId"]
    assert list(Delivery.objects.values_list("source_id", flat=True)) == [second]


def test_an_install_racing_the_same_devices_first_install_answers_with_that_one(
        sdk, app, monkeypatch):
    """Two first launches of one device at once: both looked and saw no install, the second
    write breaks the unique constraint, and its caller gets the stored install as a repeat."""
    from django.utils import timezone

    from tracking import services, sql

    first = post_install(sdk, app, device_id="gaid-race").json()["data"]
    real = sql.attribution_inputs

    def saw_no_install(**kwargs):
        inputs = real(**kwargs)
        return sql.AttributionInputs(None, inputs.referrer_click, inputs.device_clicks,
                                     inputs.network_clicks)

    monkeypatch.setattr(sql, "attribution_inputs", saw_no_install)
    outcome = services.install_record(data=services.InstallReport(
        app_id=app.id, platform="android", sdk_version="1.0", device_id="gaid-race"),
        now=timezone.now())
    assert outcome.created is False and str(outcome.install.id) == first["installId"]
    assert Install.objects.count() == 1
