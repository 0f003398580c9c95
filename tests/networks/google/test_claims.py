"""Google Ads claims end to end against a local HTTPS stand-in of Google's App Conversion
Tracking and Remarketing API: an install with an advertising id (or Google's click in its Play
referrer) of an app with a Google Ads integration gets a claim in its own write; a worker's
first_open re-attributes it to `google` (trail, webhook, rollup repair) and the cross-network
answer goes once, or the claim finishes, retries or gives up as google_ads/policy.py says."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from analytics.models import RollupDirtyDay
from consent.consent_data import Consent
from consent.services import consent_record
from delivery.models import Delivery
from networks.google import claims
from networks.google.policy import State, Step
from networks.models import GoogleClaim, GoogleClaimAttempt
from tests.delivery.helpers import make_postback, make_webhook
from tests.networks.google.helpers import (
    AD_EVENT,
    DEV_TOKEN,
    GAID,
    GCLID,
    LINK_ID,
    NOT_ATTRIBUTED,
    android_install,
    google,
    record_click,
)
from tracking.models import CampaignName, Install

pytestmark = pytest.mark.django_db


def send_due() -> GoogleClaimAttempt | None:
    """What a worker's task does with the one claim, once its retry is due."""
    claim = GoogleClaim.objects.get()
    GoogleClaim.objects.filter(id=claim.id, state=State.PENDING).update(
        next_attempt_at=timezone.now())
    return claims.claim_send(claim_id=claim.id)


def query(request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(request.path).query).items()}


def test_a_google_ads_install_is_reattributed_and_google_hears_it_was_credited(
        sdk, google_app, google_api):
    stand_in = google_api(google(200), google(200, {}))
    make_webhook(google_app, "https://hooks.example.com/in", events=("install",))
    response = android_install(sdk, google_app)
    assert response.status_code == 201 and response.json()["data"]["isOrganic"] is True
    install = Install.objects.get()
    claim = GoogleClaim.objects.get()
    assert claim.install_id == install.id and claim.rdid == GAID and claim.state == "pending"

    attempt = send_due()

    first = stand_in.requests[0]
    assert first.method == "POST" and urlsplit(first.path).path == "/pagead/conversion/app/1.0"
    params = query(first)
    assert params == {
        "dev_token": DEV_TOKEN, "link_id": LINK_ID, "app_event_type": "first_open",
        "rdid": GAID, "id_type": "advertisingid", "lat": "0", "app_version": "3.1.0",
        "os_version": "14", "sdk_version": "3.1.0",
        "timestamp": f"{install.installed_at.timestamp():.6f}"}
    assert first.headers["X-Forwarded-For"] == "203.0.113.9"
    assert first.headers["User-Agent"].startswith("Dalvik/2.1.0")
    assert attempt.reading == "attributed" and "dev_token=***" in attempt.url
    install.refresh_from_db()
    assert (install.media_source, install.campaign_id, install.adset, install.match_type) == (
        "google", "123456789", "987654321", "google_ads")
    assert install.is_organic is False and install.confidence == 100
    step = install.decision["steps"][-1]
    assert step["outcome"].startswith(
        "Google Ads: the App Conversion API attributed this install to campaign 123456789 "
        "(My App Campaign), ad group 987654321, network Search; re-attributed")
    assert install.decision["google_ads"]["read_as"]["campaign_name"] == "My App Campaign"
    assert install.platform_metadata["campaign"]["campaign_name"] == "My App Campaign"
    assert install.platform_metadata["campaign"]["network_type"] == "Search"
    assert CampaignName.objects.get().name == "My App Campaign"  # reports label it
    hook = json.loads(Delivery.objects.get(event_type="re-attribution").body)
    assert hook["data"]["media_source"] == "google"
    assert hook["data"]["campaign_id"] == "123456789"
    assert RollupDirtyDay.objects.exists()
    claim.refresh_from_db()
    assert claim.state == "pending" and claim.step == Step.CROSS_NETWORK
    assert claim.reattributed is True and claim.ad_event_id == AD_EVENT["ad_event_id"]

    cross = send_due()

    assert cross.step == Step.CROSS_NETWORK and cross.reading == "acknowledged"
    second = stand_in.requests[1]
    assert urlsplit(second.path).path == "/pagead/conversion/app/1.0/cross_network"
    assert query(second)["ad_event_id"] == AD_EVENT["ad_event_id"]
    assert query(second)["attributed"] == "1"
    claim.refresh_from_db()
    assert claim.state == State.ATTRIBUTED and claim.cross_network == "sent"
    assert claim.rdid == "" and claim.ip is None  # the device's data is not kept past the end
    assert send_due() is None  # sent once: nothing more to do
    assert len(stand_in.requests) == 2


def test_google_claiming_an_install_of_our_own_click_hears_it_was_not_credited(
        sdk, google_app, google_api):
    stand_in = google_api(google(200), google(200, {}))
    click_id = record_click(google_app)
    android_install(sdk, google_app, install_referrer=f"click_id={click_id}&gclid={GCLID}")
    install = Install.objects.get()
    assert install.media_source == "network_a" and install.click_id == click_id

    send_due()
    send_due()

    install.refresh_from_db()
    assert install.media_source == "network_a" and install.campaign_id == "ours"
    assert "kept its attribution (the Play referrer names our own click)" in (
        install.decision["steps"][-1]["outcome"])
    assert query(stand_in.requests[0])["market_referrer_gclid"] == GCLID
    assert query(stand_in.requests[1])["attributed"] == "0"
    claim = GoogleClaim.objects.get()
    assert claim.state == State.ATTRIBUTED and claim.reattributed is False
    assert not Delivery.objects.filter(event_type="re-attribution").exists()


def test_a_gclid_in_the_play_referrer_is_google_at_once_and_the_answer_fills_the_campaign(
        sdk, google_app, google_api):
    google_api(google(200), google(200, {}))
    response = android_install(sdk, google_app, device_id=None,
                               install_referrer=f"gclid={GCLID}&utm_source=google")
    body = response.json()["data"]
    assert body["isOrganic"] is False and body["mediaSource"] == "google"
    install = Install.objects.get()
    assert install.match_type == "install_referrer" and install.campaign_id is None
    claim = GoogleClaim.objects.get()
    assert claim.gclid == GCLID and claim.rdid == ""

    send_due()

    install.refresh_from_db()
    assert (install.media_source, install.campaign_id) == ("google", "123456789")


def test_an_install_google_does_not_claim_stays_as_it_was(sdk, google_app, google_api):
    stand_in = google_api(google(200, NOT_ATTRIBUTED))
    android_install(sdk, google_app)
    before = Install.objects.values().get()

    attempt = send_due()

    assert attempt.reading == "not_attributed"
    assert Install.objects.values().get() == before
    claim = GoogleClaim.objects.get()
    assert claim.state == State.NOT_ATTRIBUTED and claim.answer == NOT_ATTRIBUTED
    assert send_due() is None and len(stand_in.requests) == 1  # no cross-network answer


def test_an_error_then_success_claims_on_the_retry(sdk, google_app, google_api):
    stand_in = google_api(google(503), google(200), google(200, {}))
    android_install(sdk, google_app)

    first = send_due()
    claim = GoogleClaim.objects.get()
    assert first.reading == "unavailable" and claim.state == State.PENDING
    assert claim.next_attempt_at > timezone.now() + timedelta(seconds=50)
    assert Install.objects.get().is_organic is True

    second = send_due()

    assert second.reading == "attributed" and second.number == 2
    assert Install.objects.get().media_source == "google"
    send_due()
    assert [urlsplit(r.path).path.rsplit("/", 1)[-1] for r in stand_in.requests] == [
        "1.0", "1.0", "cross_network"]


def test_google_down_leaves_the_install_as_it_was_and_retries(sdk, google_app, google_api,
                                                               settings):
    stand_in = google_api()
    url = stand_in.url("/")
    stand_in.stop()  # nothing listens: connection refused
    settings.GOOGLE_ADS_API_URL = url.rstrip("/")
    android_install(sdk, google_app)

    attempt = send_due()

    assert attempt.reading == "unavailable" and "Could not reach Google" in attempt.error_message
    claim = GoogleClaim.objects.get()
    assert claim.state == State.PENDING and claim.rdid == GAID
    assert Install.objects.get().is_organic is True


def test_a_refused_request_is_not_retried(sdk, google_app, google_api):
    google_api(google(400))
    android_install(sdk, google_app)

    attempt = send_due()

    assert attempt.reading == "rejected"
    assert GoogleClaim.objects.get().state == State.REJECTED
    assert send_due() is None


def test_the_cross_network_answer_is_retried_until_google_takes_it_and_sent_once(
        sdk, google_app, google_api):
    stand_in = google_api(google(200), google(502), google(200, {}))
    android_install(sdk, google_app)

    send_due()
    send_due()
    assert GoogleClaim.objects.get().state == State.PENDING
    send_due()
    assert send_due() is None

    paths = [urlsplit(r.path).path for r in stand_in.requests]
    assert paths.count("/pagead/conversion/app/1.0/cross_network") == 2
    assert paths.count("/pagead/conversion/app/1.0") == 1
    claim = GoogleClaim.objects.get()
    assert claim.state == State.ATTRIBUTED and claim.cross_network == "sent"


def test_no_claim_is_sent_for_a_user_who_denied_ad_user_data(sdk, google_app, google_api):
    stand_in = google_api(google(200))
    android_install(sdk, google_app, consent_data={"manual": {
        "gdpr_applies": True, "ad_user_data_enabled": False,
        "ad_personalization_enabled": False}})

    assert send_due() is None

    claim = GoogleClaim.objects.get()
    assert claim.state == State.SKIPPED and "ad_user_data is denied" in claim.last_error
    assert stand_in.requests == []


def test_consent_given_is_sent_in_googles_terms(sdk, google_app, google_api):
    stand_in = google_api(google(200, NOT_ATTRIBUTED))
    response = android_install(sdk, google_app)
    consent_record(app_id=google_app.id, install_id=None, device_id=GAID,
                   applies_from=Install.objects.get().installed_at - timedelta(seconds=1),
                   consent=Consent(gdpr_applies=True, ad_user_data=True,
                                   ad_personalization=False, source="manual"))
    assert response.status_code == 201

    send_due()

    params = query(stand_in.requests[0])
    assert (params["eea"], params["ad_user_data"], params["ad_personalization"]) == (
        "1", "1", "0")


def test_no_claim_without_an_integration_or_an_identifier(sdk, app, google_app, google_api):
    android_install(sdk, google_app, device_id=None)
    assert not GoogleClaim.objects.exists()


def test_the_google_postback_hears_of_the_reattribution_and_no_other(
        sdk, google_app, google_api):
    google_api(google(200), google(200, {}))
    make_postback(google_app, "https://postbacks.example.com/google?c={campaign_id}",
                  media_source="google")
    make_postback(google_app, "https://postbacks.example.com/a", media_source="network_a")
    record_click(google_app, device="11111111-2222-4333-8444-555555555555")
    android_install(sdk, google_app)

    send_due()

    postbacks = Delivery.objects.filter(kind="postback")
    assert [d.postback.media_source for d in postbacks] == ["google"]
