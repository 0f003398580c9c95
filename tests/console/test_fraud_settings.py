"""The fraud settings page: the app's rules as the API answers them, changed by an admin
through the API's serializer and service (the API then reads the change), refused values
shown beside their fields, members only read, another organization's app a 404; and the fraud
report page's figures by reason, clicks kept out and refused requests."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime

import pytest
from django.urls import reverse

from fraud import selectors
from fraud import services as fraud_services
from fraud.models import AppFraudSettings, BotClicks, SignatureRefusal
from tests.analytics.helpers import install
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

FORM = {"engagement_injection_mode": "block", "ctit_anomalies_mode": "block",
        "ctit_floor_seconds": "10", "too_many_engagements_mode": "block",
        "too_many_engagements_per_hour": "5", "click_flood_mode": "block",
        "anonymous_traffic_mode": "off", "bots_mode": "block", "listed_networks": "",
        "test_devices": "", "signing_mode": "off"}


def url(app):
    return reverse("console:fraud-settings", args=[app.id])


def text_of(response) -> str:
    words = re.sub(r"<[^>]+>", " ", html.unescape(response.content.decode()))
    return re.sub(r"\s+", " ", words)


def selected(page: str, name: str) -> str:
    select = re.search(rf'<select id="id_{name}" name="{name}".*?</select>', page, re.S).group(0)
    return re.search(r'<option value="(\w+)" selected>', select).group(1)


def test_the_page_shows_the_apps_rules_as_the_api_answers_them(console, app, owner_api):
    fraud_services.settings_update(app_id=app.id, changes={
        "ctit_anomalies_mode": "flag", "ctit_floor_seconds": 20,
        "listed_networks": ["203.0.113.0/24"], "test_devices": ["gaid-test"]})
    response = console.get(url(app))
    assert response.status_code == 200
    page = response.content.decode()
    answered = owner_api.get(f"/api/v1/apps/{app.id}/fraud-settings").json()["data"][
        "fraud_settings"]
    for name in ("ctit_anomalies_mode", "engagement_injection_mode", "too_many_engagements_mode",
                 "click_flood_mode", "anonymous_traffic_mode", "bots_mode", "signing_mode"):
        assert selected(page, name) == answered[name]
    assert 'name="ctit_floor_seconds" type="number" value="20"' in page
    assert ">203.0.113.0/24</textarea>" in page and ">gaid-test</textarea>" in page
    assert 'aria-current="page">Fraud settings</a>' in page
    text = text_of(response)
    assert "Install hijacking ctit_anomalies" in text and "Save fraud settings" in text


def test_an_admin_changes_a_mode_and_the_api_reads_the_change(console, app, owner_api):
    response = console.post(url(app), {
        **FORM, "ctit_anomalies_mode": "flag", "ctit_floor_seconds": "30",
        "too_many_engagements_per_hour": "12", "signing_mode": "report",
        "listed_networks": "203.0.113.7/24\n\n2001:db8::/32\n",
        "test_devices": " GAID-One \ngaid-two"})
    assert response.status_code == 302 and response["Location"] == url(app)
    answered = owner_api.get(f"/api/v1/apps/{app.id}/fraud-settings").json()["data"][
        "fraud_settings"]
    assert answered["ctit_anomalies_mode"] == "flag" and answered["ctit_floor_seconds"] == 30
    assert answered["too_many_engagements_per_hour"] == 12
    assert answered["signing_mode"] == "report"
    assert answered["listed_networks"] == ["203.0.113.0/24", "2001:db8::/32"]
    assert answered["test_devices"] == ["gaid-one", "gaid-two"]
    assert selectors.settings_of(app.id).ctit_anomalies_mode == "flag"
    assert "Saved the fraud settings" in text_of(console.get(url(app)))


def test_emptied_lists_are_stored_empty(console, app):
    fraud_services.settings_update(app_id=app.id, changes={"test_devices": ["gaid-test"]})
    assert console.post(url(app), FORM).status_code == 302
    assert AppFraudSettings.objects.get(app=app).test_devices == []


def test_refused_values_are_shown_beside_their_fields_and_nothing_is_stored(console, app):
    response = console.post(url(app), {
        **FORM, "ctit_anomalies_mode": "maybe", "ctit_floor_seconds": "3601",
        "too_many_engagements_per_hour": "many",
        "listed_networks": "203.0.113.0/24\n10.0.0.0/33", "test_devices": "x" * 65})
    assert response.status_code == 400
    page = response.content.decode()
    text = text_of(response)
    assert "Please check Install hijacking, Click-to-install floor" in text
    assert "Must be one of: off, flag, block." in text
    assert 'id="err_ctit_floor_seconds"' in page and 'id="err_ctit_anomalies_mode"' in page
    assert 'id="err_too_many_engagements_per_hour"' in page
    assert ("Item 2: must be an IPv4 or IPv6 network in CIDR notation" in text)
    assert re.search(r'id="err_test_devices"><li>Item 1: Ensure this field has no more than 64 '
                     r'characters', page)
    assert "10.0.0.0/33</textarea>" in page  # what was typed is kept
    assert not AppFraudSettings.objects.filter(app=app).exists()


def test_a_hostile_test_device_is_shown_as_text(console, app):
    fraud_services.settings_update(app_id=app.id, changes={
        "test_devices": ["</textarea><script>alert(1)</script>"]})
    page = console.get(url(app)).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_marketer_neither_reads_nor_changes_the_settings(client, owner, app):
    marketer = UserFactory(email="marketer@example.com", organization=owner.organization,
                           role="marketer")
    client.force_login(marketer, backend="django.contrib.auth.backends.ModelBackend")
    assert client.get(url(app)).status_code == 403
    refused = client.post(url(app), {**FORM, "ctit_anomalies_mode": "off"})
    assert refused.status_code == 403
    assert not AppFraudSettings.objects.filter(app=app).exists()


def test_another_organizations_app_is_a_404(console, outsider_app):
    assert console.get(url(outsider_app)).status_code == 404
    assert console.post(url(outsider_app), FORM).status_code == 404


def test_a_visitor_not_logged_in_is_sent_to_the_login_page(client, app):
    response = client.get(url(app))
    assert response.status_code == 302 and "login" in response["Location"]


def test_every_app_page_links_the_fraud_settings(console, app):
    page = console.get(reverse("console:installs", args=[app.id])).content.decode()
    assert f'href="{url(app)}">Fraud settings</a>' in page


# --- The fraud report page -------------------------------------------------------------------

def test_the_report_page_counts_by_reason_clicks_kept_out_and_refused_requests(console, app):
    day = date(2026, 3, 10)
    for device, status, reason in (("d1", "blocked", "ctit_anomalies"),
                                   ("d2", "blocked", "ctit_anomalies"),
                                   ("d3", "flagged", "anonymous_traffic")):
        row = install(app, datetime(2026, 3, 10, 12, tzinfo=UTC), device, source="net")
        type(row).objects.filter(id=row.id).update(fraud_status=status, fraud_reasons=[
            {"reason": reason, "value": 3, "sub_reason": ""}])
    BotClicks.objects.create(app=app, day=day, media_source="net", mode="block", clicks=7)
    BotClicks.objects.create(app=app, day=day, media_source="net", mode="flag", clicks=2)
    SignatureRefusal.objects.create(app=app, day=day, sub_reason="missing", refusals=4)
    response = console.get(reverse("console:fraud-report", args=[app.id]),
                           {"range": "custom", "start": "2026-03-10", "end": "2026-03-10"})
    assert response.status_code == 200
    text = text_of(response)
    assert "Install hijacking ctit_anomalies 2 0 0" in text
    assert "Anonymous traffic anonymous_traffic 0 1 0" in text
    assert "Bots bots blocked 7" in text and "Bots bots flagged (recorded) 2" in text
    assert "The request was not signed: 4" in text
    assert f'href="{url(app)}">Fraud settings</a>' in response.content.decode()
