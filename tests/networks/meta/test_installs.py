"""POST /installs with Meta's install referrers (docs/networks.md, "Meta"): Meta's published
example is attributed to meta / 654321 with every decrypted name kept and shown; what does not
decrypt attributes nothing and the trail says why; Meta's own install referrer, click- and
view-through; bad input is a 400 naming the field."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from analytics import rollups
from networks import services as integration_services
from tests.helpers import served_from_memory
from tests.networks.meta.test_referrer import (
    EXAMPLE_CAMPAIGN,
    EXAMPLE_DATA,
    EXAMPLE_KEY,
    EXAMPLE_NONCE,
    play_referrer,
)
from tests.tracking.helpers import ANDROID_SDK, PUBLIC_IP, click_through, install_body
from tracking.models import Install

pytestmark = pytest.mark.django_db

META_CONTENT = json.dumps({"utm_source": "apps.facebook.com", "utm_content": {
    "source": {"data": EXAMPLE_DATA, "nonce": EXAMPLE_NONCE}}})


def post_install(sdk, app, *, ip=PUBLIC_IP, **overrides):
    return sdk.post("/api/v1/installs", install_body(app, **overrides), format="json",
                    HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=ip)


def steps_of(install_id) -> list[str]:
    return [s["outcome"] for s in Install.objects.get(id=install_id).decision["steps"]]


def test_metas_example_referrer_is_meta_654321_with_every_name_kept(sdk, owner_api, meta_app):
    response = post_install(sdk, meta_app, install_referrer=play_referrer(), device_id="gaid-1")
    assert response.status_code == 201
    data = response.json()["data"]
    assert (data["matchType"], data["mediaSource"], data["campaignId"], data["isOrganic"]) == (
        "install_referrer", "meta", "654321", False)
    install = Install.objects.get(id=data["installId"])
    assert (install.adset, install.ad) == ("987654", "54321")
    assert install.platform_metadata == {"platform": "meta", "origin": "play_referrer",
                                         "touch": "click", "campaign": EXAMPLE_CAMPAIGN}
    assert "Meta install referrer (decrypted): click-through, matched" in steps_of(install.id)

    shown = owner_api.get(f"/api/v1/installs/{install.id}").json()["data"]["install"]
    assert shown["platform_metadata"]["campaign"]["campaign_group_name"] == (
        "Adams Test Campaign Group")
    listed = owner_api.get("/api/v1/installs", {"app_id": str(meta_app.id)}).json()["data"]
    assert listed["installs"][0]["platform_metadata"]["campaign"] == EXAMPLE_CAMPAIGN


def test_without_a_key_metas_referrer_attributes_nothing_and_the_trail_says_why(sdk, app):
    data = post_install(sdk, app, install_referrer=play_referrer()).json()["data"]
    # Not even Meta's utm_source: Meta asks that it never be read as a campaign.
    assert (data["matchType"], data["mediaSource"]) == ("organic", None)
    assert "Meta install referrer not used: the app has no Meta decryption key" in steps_of(
        data["installId"])


def test_under_the_wrong_key_metas_referrer_attributes_nothing(sdk, app):
    integration_services.meta_integration_set(app_id=app.id, meta_app_id="1",
                                              decryption_key="ab" * 32)
    response = post_install(sdk, app, install_referrer=play_referrer())
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["matchType"] == "organic"
    assert ("Meta install referrer not used: Meta's data did not decrypt with the app's key (a "
            "wrong key, or the data was altered or cut)") in steps_of(data["installId"])


def test_a_tampered_or_truncated_referrer_is_never_a_server_error(sdk, meta_app):
    for referrer in (play_referrer(data=EXAMPLE_DATA[:-2]), play_referrer(data="zz"),
                     play_referrer(nonce=""), "utm_content=%7B%22source%22%3A%5B%5D%7D",
                     "utm_content=%7Bnot json"):
        response = post_install(sdk, meta_app, install_referrer=referrer)
        assert response.status_code == 201, referrer
        assert response.json()["data"]["matchType"] == "organic"


def test_our_own_click_id_in_the_referrer_beats_metas(api, sdk, meta_app):
    location = click_through(api, meta_app, pid="network", c="spring")["Location"]
    ours = parse_qs(urlsplit(location).query)["referrer"][0]
    data = post_install(sdk, meta_app, install_referrer=f"{ours}&{play_referrer()}"
                        ).json()["data"]
    assert (data["mediaSource"], data["campaignId"]) == ("network", "spring")
    assert "Meta install referrer (decrypted): our own click id in the referrer won" in (
        steps_of(data["installId"]))


def test_metas_click_through_beats_a_device_id_click(api, sdk, meta_app):
    click_through(api, meta_app, pid="network", c="spring", advertising_id="gaid-7")
    body = {"install_referrer": META_CONTENT, "is_ct": 1,
            "actual_timestamp": int((timezone.now() - timedelta(days=2)).timestamp())}
    data = post_install(sdk, meta_app, device_id="gaid-7", meta_install_referrer=body
                        ).json()["data"]
    assert (data["matchType"], data["mediaSource"], data["campaignId"]) == (
        "install_referrer", "meta", "654321")
    assert data["attributedTouchTime"] == body["actual_timestamp"] * 1000


def test_metas_view_through_loses_to_a_click_and_wins_without_one(api, sdk, meta_app):
    view = {"install_referrer": META_CONTENT, "is_ct": False,
            "actual_timestamp": int((timezone.now() - timedelta(hours=2)).timestamp())}
    click_through(api, meta_app, pid="network", c="spring", advertising_id="gaid-8")
    clicked = post_install(sdk, meta_app, device_id="gaid-8", meta_install_referrer=view)
    assert (clicked.json()["data"]["matchType"], clicked.json()["data"]["mediaSource"]) == (
        "device_id", "network")
    # Another device on another network: no click of any source qualifies.
    viewed = post_install(sdk, meta_app, device_id="gaid-9", meta_install_referrer=view,
                          ip="93.184.216.34")
    assert (viewed.json()["data"]["matchType"], viewed.json()["data"]["mediaSource"]) == (
        "view_through", "meta")
    install = Install.objects.get(id=viewed.json()["data"]["installId"])
    assert install.platform_metadata["touch"] == "view"


def test_the_view_window_is_the_integrations_setting(sdk, app):
    integration_services.meta_integration_set(app_id=app.id, meta_app_id="1",
                                              decryption_key=EXAMPLE_KEY.hex(),
                                              view_window_hours=48)
    view = {"install_referrer": META_CONTENT, "is_ct": 0,
            "actual_timestamp": int((timezone.now() - timedelta(hours=30)).timestamp())}
    data = post_install(sdk, app, meta_install_referrer=view).json()["data"]
    assert data["matchType"] == "view_through"
    integration_services.meta_integration_set(app_id=app.id, meta_app_id="1",
                                              decryption_key=EXAMPLE_KEY.hex())
    data = post_install(sdk, app, device_id="gaid-2", meta_install_referrer=view).json()["data"]
    assert data["matchType"] == "organic"


@pytest.mark.parametrize(("value", "field"), [
    ("text", "meta_install_referrer"),
    ({"is_ct": True, "actual_timestamp": 1700000000}, "install_referrer"),
    ({"install_referrer": 5, "is_ct": True, "actual_timestamp": 1700000000}, "install_referrer"),
    ({"install_referrer": "x" * 4097, "is_ct": True, "actual_timestamp": 1700000000},
     "install_referrer"),
    ({"install_referrer": "{}", "is_ct": "yes", "actual_timestamp": 1700000000}, "is_ct"),
    ({"install_referrer": "{}", "is_ct": 2, "actual_timestamp": 1700000000}, "is_ct"),
    ({"install_referrer": "{}", "is_ct": True}, "actual_timestamp"),
    ({"install_referrer": "{}", "is_ct": True, "actual_timestamp": "1700000000"},
     "actual_timestamp"),
    ({"install_referrer": "{}", "is_ct": True, "actual_timestamp": 1700000000000},
     "actual_timestamp"),
    ({"install_referrer": "{}", "is_ct": True, "actual_timestamp": -1}, "actual_timestamp"),
    ({"install_referrer": "{}", "is_ct": True, "actual_timestamp": 1.5}, "actual_timestamp"),
    ({"install_referrer": "{}", "is_ct": True, "actual_timestamp": 1, "extra": 1}, "extra"),
])
def test_a_bad_meta_install_referrer_is_a_400_naming_the_field(sdk, meta_app, value, field):
    response = post_install(sdk, meta_app, meta_install_referrer=value)
    assert response.status_code == 400
    assert field in json.dumps(response.json()["error"])
    assert not Install.objects.exists()


def test_meta_install_referrer_without_metas_data_attributes_nothing(sdk, meta_app):
    body = {"install_referrer": "{}", "is_ct": True, "actual_timestamp": 1_700_000_000}
    data = post_install(sdk, meta_app, meta_install_referrer=body).json()["data"]
    assert data["matchType"] == "organic"
    assert ("Meta install referrer not used: Meta's install referrer carries no encrypted "
            "data") in steps_of(data["installId"])


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_key_is_read_from_the_process_cache(live_local_caches, sdk, meta_app):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from networks import selectors

    selectors.meta_of(meta_app.id)
    assert served_from_memory(lambda: selectors.meta_of(meta_app.id))
    with CaptureQueriesContext(connection) as queries:
        response = post_install(sdk, meta_app, install_referrer=play_referrer())
    assert response.json()["data"]["mediaSource"] == "meta"
    assert not [q for q in queries if "integrations_" in q["sql"]]


def test_the_installs_export_carries_every_decrypted_id_and_name(sdk, owner_api, meta_app):
    import csv
    import io

    post_install(sdk, meta_app, install_referrer=play_referrer(), device_id="gaid-1")
    today = timezone.now().date()
    response = owner_api.get("/api/v1/analytics/export", {
        "app_id": str(meta_app.id), "type": "installs", "start_date": f"{today}T00:00:00Z",
        "end_date": f"{today + timedelta(days=1)}T00:00:00Z"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["media_source"], r["campaign_id"], r["adset"], r["ad"]) for r in rows] == [
        ("meta", "654321", "987654", "54321")]
    assert json.loads(rows[0]["platform_metadata"])["campaign"] == EXAMPLE_CAMPAIGN


def test_reports_label_metas_campaign_with_its_name(sdk, owner_api, meta_app):
    post_install(sdk, meta_app, install_referrer=play_referrer(), device_id="gaid-1")
    post_install(sdk, meta_app, install_referrer=play_referrer(), device_id="gaid-2")
    rollups.rebuild_app(app_id=meta_app.id)
    today = timezone.now().date()
    period = {"app_id": str(meta_app.id), "start_date": f"{today}T00:00:00Z",
              "end_date": f"{today + timedelta(days=1)}T00:00:00Z"}
    report = owner_api.get("/api/v1/analytics/campaigns", period).json()["data"]
    meta = [row for row in report["campaigns"] if row["media_source"] == "meta"]
    assert [(r["campaign_id"], r["campaign_name"], r["installs"]) for r in meta] == [
        ("654321", "Adams Test Campaign Group", 2)]


def test_a_renamed_campaign_reads_as_renamed(meta_app):
    from tracking import selectors as tracking_selectors
    from tracking.models import CampaignName

    now = timezone.now()
    CampaignName.objects.create(app=meta_app, media_source="meta", campaign_id="1",
                                name="Old", first_seen_at=now - timedelta(days=1))
    CampaignName.objects.create(app=meta_app, media_source="meta", campaign_id="1",
                                name="New", first_seen_at=now)
    assert tracking_selectors.campaign_names(app_id=meta_app.id) == {("meta", "1"): "New"}


def test_done_when_metas_example_shows_its_names_in_the_console(client, owner, sdk, meta_app):
    data = post_install(sdk, meta_app, install_referrer=play_referrer()).json()["data"]
    assert (data["mediaSource"], data["campaignId"]) == ("meta", "654321")
    client.force_login(owner, backend="django.contrib.auth.backends.ModelBackend")
    html = client.get(f"/console/apps/{meta_app.id}/installs/{data['installId']}"
                      ).content.decode()
    for shown in ("Meta's campaign (decrypted)", "Adams Test Campaign Group",
                  "Adams Test Campaign", "Adams Test Ad Group", "APP_INSTALLS",
                  "Meta install referrer (decrypted): click-through, matched."):
        assert shown in html, shown
