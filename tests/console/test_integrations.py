"""The console's integrations page (under an app's settings): an admin sets Meta and Google Ads
up, a secret is never shown again (only its last 4 characters), errors come back beside their
fields, members only read, and another organization's app does not exist."""

from __future__ import annotations

import pytest

from networks import selectors
from networks.models import MetaConfig
from tests.console.helpers import assert_shown_as_text
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

KEY = "2575590594a9cd809e5bfacf397f8c1ac730dbc38a3e137ecd1ab66591c8c3c9"
TOKEN = "EAAGm0PX4ZCpsBAKZBnotarealtokenWXYZ"


def page(app):
    return f"/console/apps/{app.id}/settings/integrations"


def test_the_settings_page_leads_to_the_integrations(console, app):
    html = console.get(f"/console/apps/{app.id}/settings").content.decode()
    assert page(app) in html


def test_an_admin_sets_meta_up_and_the_page_never_shows_the_secrets(console, app):
    html = console.get(page(app)).content.decode()
    assert "Settings > Basic" in html and "Install Referrer Decryption Key" in html
    assert "Third-party app analytics" in html
    response = console.post(page(app), {
        "action": "meta", "meta_app_id": "1234567890", "install_referrer_decryption_key": KEY,
        "access_token": TOKEN, "view_window_hours": "24",
        "event_mapping": "purchase = fb_mobile_purchase\n\n"
                         "sign_up = fb_mobile_complete_registration"})
    assert response.status_code == 302
    meta = selectors.meta_of(app.id)
    assert (meta.decryption_key, meta.access_token) == (bytes.fromhex(KEY), TOKEN)
    assert meta.event_mapping == {"purchase": "fb_mobile_purchase",
                                  "sign_up": "fb_mobile_complete_registration"}
    html = console.get(page(app)).content.decode()
    assert KEY not in html and TOKEN not in html
    assert "c3c9" in html and "WXYZ" in html and "purchase = fb_mobile_purchase" in html


def test_saving_again_without_the_key_keeps_it(console, app):
    console.post(page(app), {"action": "meta", "meta_app_id": "1",
                             "install_referrer_decryption_key": KEY, "view_window_hours": "24"})
    console.post(page(app), {"action": "meta", "meta_app_id": "2", "view_window_hours": "12",
                             "install_referrer_decryption_key": "", "access_token": ""})
    meta = selectors.meta_of(app.id)
    assert (meta.meta_app_id, meta.view_window_hours, meta.decryption_key) == (
        "2", 12, bytes.fromhex(KEY))


def test_a_bad_key_is_shown_beside_its_field_and_nothing_is_saved(console, app):
    response = console.post(page(app), {"action": "meta", "meta_app_id": "12ab",
                                        "install_referrer_decryption_key": "not-hex",
                                        "event_mapping": "purchase"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "64 hexadecimal characters of Meta" in html
    assert "Line 1: write our event name" in html
    assert "not-hex" not in html  # a secret, even a wrong one, is never echoed
    assert not MetaConfig.objects.exists()


def test_an_admin_sets_google_ads_up_and_removes_it(console, app):
    response = console.post(page(app), {"action": "google_ads",
                                        "link_id": "A1B2C3D4E5F60718",
                                        "event_mapping": "purchase = in_app_purchase"})
    assert response.status_code == 302
    assert selectors.google_ads_of(app.id).link_id == "A1B2C3D4E5F60718"
    assert "A1B2C3D4E5F60718" not in console.get(page(app)).content.decode()
    console.post(page(app), {"action": "remove_google_ads"})
    assert selectors.google_ads_of(app.id) is None


def test_a_marketer_neither_reads_nor_changes_integrations(client, owner, app):
    marketer = UserFactory(email="marketer@example.com", organization=owner.organization,
                           role="marketer")
    client.force_login(marketer, backend="django.contrib.auth.backends.ModelBackend")
    refused = client.get(page(app))
    assert refused.status_code == 403
    assert "Only an organization&#x27;s admins and developers may change apps" in (
        refused.content.decode())
    response = client.post(page(app), {"action": "meta", "meta_app_id": "1",
                                        "install_referrer_decryption_key": KEY})
    assert response.status_code == 403
    assert not MetaConfig.objects.exists()


def test_another_organizations_app_is_not_found(console, outsider_app):
    assert console.get(page(outsider_app)).status_code == 404
    assert console.post(page(outsider_app), {"action": "remove_meta"}).status_code == 404


def test_the_install_page_shows_metas_decrypted_names_as_text(console, app):
    from tracking.models import Install

    install = Install.objects.create(
        app=app, platform="android", sdk_version="1", match_type="install_referrer",
        is_organic=False, media_source="meta", campaign_id="654321",
        platform_metadata={"platform": "meta", "origin": "play_referrer", "touch": "click",
                           "campaign": {"campaign_group_id": "654321",
                                        "campaign_group_name": "<script>alert(1)</script>",
                                        "adgroup_name": "Adams Test Ad Group"}})
    html = console.get(f"/console/apps/{app.id}/installs/{install.id}").content.decode()
    assert "Meta's campaign (decrypted)" in html
    assert "Campaign name" in html and "Adams Test Ad Group" in html
    assert_shown_as_text(html)


def test_the_campaigns_page_labels_a_named_campaign():
    from types import SimpleNamespace

    from console.views.reports import _campaign_label

    assert _campaign_label(SimpleNamespace(campaign_id="654321", campaign_name="Spring")) == (
        "Spring (654321)")
    assert _campaign_label(SimpleNamespace(campaign_id="c1", campaign_name=None)) == "c1"
    assert _campaign_label(SimpleNamespace(campaign_id="", campaign_name=None)) == (
        "(no campaign)")


# --- Ad spend -----------------------------------------------------------------------------------

TIKTOK_TOKEN = "tiktokConsoleToken0123456789WXYZ"


def test_an_admin_sets_a_cost_connection_up_and_the_page_never_shows_its_secret(console, app):
    from networks.models import SpendConnection

    html = console.get(page(app)).content.decode()
    assert "Ad spend" in html and "TikTok Ads Manager" in html
    assert "Account Settings &gt; API" in html
    response = console.post(page(app), {
        "action": "save_cost_tiktok", "tiktok-advertiser_id": "7000000001",
        "tiktok-access_token": TIKTOK_TOKEN, "tiktok-lookback_days": "14",
        "tiktok-campaign_ids": "11, 22", "tiktok-enabled": "on"})
    assert response.status_code == 302
    connection = SpendConnection.objects.get(app=app, network="tiktok")
    assert (connection.lookback_days, connection.campaign_ids) == (14, ["11", "22"])
    html = console.get(page(app)).content.decode()
    assert TIKTOK_TOKEN not in html and "WXYZ" in html and "No pull yet." in html


def test_a_cost_form_with_errors_shows_them_beside_the_fields(console, app):
    response = console.post(page(app), {
        "action": "save_cost_google_ads", "google_ads-customer_id": "<b>12</b>",
        "google_ads-client_id": "abc", "google_ads-lookback_days": "99"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "10 digits" in html and "from 1 to 30" in html
    assert "<b>12</b>" not in html and "&lt;b&gt;12&lt;/b&gt;" in html


def test_the_test_button_pulls_now_and_the_error_shows_as_text(console, app, settings):
    from networks.models import CostPull
    from networks.spend import services

    services.connection_set(app_id=app.id, network="tiktok", enabled=True,
                            account={"advertiser_id": "7000000001"},
                            secrets={"access_token": TIKTOK_TOKEN}, lookback_days=7,
                            campaign_ids=[], campaign_name_contains="")
    response = console.post(page(app), {"action": "pull_cost_tiktok"})
    assert response.status_code == 302
    pull = CostPull.objects.get(app=app)
    CostPull.objects.filter(pk=pull.pk).update(state="failed",
                                               last_error="TikTok said <script>x</script>")
    html = console.get(page(app)).content.decode()
    assert "<script>x</script>" not in html
    assert "TikTok said &lt;script&gt;x&lt;/script&gt;" in html


def test_a_developer_changes_the_cost_part_and_a_marketer_is_not_allowed(app, owner, client):
    client.force_login(UserFactory(organization=owner.organization, role="developer"))
    html = client.get(page(app)).content.decode()
    assert "Ad spend" in html and "save_cost_tiktok" in html
    client.force_login(UserFactory(organization=owner.organization, role="marketer"))
    refused = client.get(page(app))
    assert refused.status_code == 403
    assert "save_cost_tiktok" not in refused.content.decode()
