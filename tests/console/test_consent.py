"""Consent in the console (docs/privacy.md): an install's page shows the user's consent, a
postback's form sets its consent_policy through the API's serializer, and the delivery log
says why a delivery was stripped or skipped."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from consent import services as consent_services
from consent.consent_data import parse
from delivery.models import PostbackConfig
from delivery.services.fanout import STRIPPED_NOTE, SUPPRESSED_NOTE
from tests.consent.tc_strings import GOOGLE, tc_string
from tests.delivery.helpers import install_event, make_postback, publish
from tracking import services
from tracking.models import Install

pytestmark = pytest.mark.django_db

DENIED = {"manual": {"gdpr_applies": True, "ad_user_data_enabled": False,
                     "ad_personalization_enabled": False}}


def page(name, app, *args):
    return reverse(f"console:{name}", args=[app.id, *args])


def install_page(console, app, install):
    response = console.get(f"/console/apps/{app.id}/installs/{install.id}")
    assert response.status_code == 200
    return response.content.decode()


def recorded_install(app, consent=None):
    services.install_record(data=services.InstallReport(
        app_id=app.id, platform="android", sdk_version="2.4.0", device_id="gaid-1",
        consent=consent), now=timezone.now())
    return Install.objects.get(app=app)


def test_an_install_page_shows_a_decoded_tcf_consent(console, app):
    install = recorded_install(app, parse({"tcf": {
        "tcstring": tc_string(purposes=[1, 3, 4, 7], vendors=[GOOGLE], cmp_id=31),
        "gdpr_applies": 1}}))
    body = install_page(console, app, install)
    assert ("GDPR applies; ad_user_data granted; ad_personalization granted (tcf: TCF policy "
            "4, CMP 31, purposes 1, 3, 4, 7, Google (vendor 755) consented)") in body


def test_an_install_page_shows_a_later_change_and_the_sharing_filter(console, app):
    install = recorded_install(app)
    consent_services.consent_change(app_id=app.id, install_id=install.id,
                                    consent=parse({**DENIED, "sharing_filter": "all"}),
                                    now=timezone.now())
    body = install_page(console, app, install)
    assert "ad_user_data denied; ad_personalization denied (manual)" in body
    assert "shared with no partner" in body


def test_an_install_without_consent_says_none_was_sent(console, app):
    assert "<dt>Consent</dt><dd>none sent</dd>" in install_page(console, app,
                                                                 recorded_install(app))


def test_the_postback_form_offers_the_consent_policy_with_strip_chosen(console, app):
    body = console.get(page("delivery-new", app, "postback")).content.decode()
    assert 'name="consent_policy" value="strip" checked' in body
    assert 'name="consent_policy" value="suppress"' in body


def test_owner_creates_and_edits_a_postback_with_a_consent_policy(console, app):
    response = console.post(page("delivery-new", app, "postback"), {
        "media_source": "facebook", "postback_url": "https://fb.example/i?d={device_id}",
        "http_method": "GET", "events": ["install"], "active": "true",
        "consent_policy": "suppress"})
    assert response.status_code == 302
    postback = PostbackConfig.objects.get(app=app)
    assert postback.consent_policy == "suppress"
    console.post(page("delivery-edit", app, "postback", postback.id), {
        "media_source": "facebook", "postback_url": "https://fb.example/i",
        "http_method": "GET", "events": ["install"], "active": "true",
        "consent_policy": "strip"})
    postback.refresh_from_db()
    assert postback.consent_policy == "strip"


def test_a_bad_consent_policy_is_refused_beside_its_field(console, app):
    response = console.post(page("delivery-new", app, "postback"), {
        "media_source": "facebook", "postback_url": "https://fb.example/i",
        "http_method": "GET", "events": ["install"], "consent_policy": "drop"})
    assert response.status_code == 400
    assert "Must be strip or suppress." in response.content.decode()
    assert not PostbackConfig.objects.exists()


@pytest.mark.parametrize(("policy", "note"), [("strip", STRIPPED_NOTE),
                                              ("suppress", SUPPRESSED_NOTE)])
def test_the_log_says_why_consent_changed_a_delivery(console, app, policy, note):
    postback = make_postback(app, "https://network.example/pb?d={device_id}")
    PostbackConfig.objects.filter(id=postback.id).update(consent_policy=policy)
    publish(install_event(app, consent=parse(DENIED)))
    body = console.get(page("delivery-log", app, "postback", postback.id)).content.decode()
    assert f"Consent: {note}".replace('"', "&quot;").replace("'", "&#x27;") in body
    if policy == "suppress":
        assert "never sent, by the user's consent." in body
