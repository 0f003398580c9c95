"""GET/PUT/DELETE /api/v1/apps/{id}/integrations...: an admin sets each platform up, nobody
ever reads a secret back (at most its last 4 characters), every field is checked, and another
organization's app does not exist."""

from __future__ import annotations

import pytest

from networks import selectors
from networks.models import GoogleAdsConfig, MetaConfig
from tests.factories import UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db

KEY = "2575590594A9CD809E5BFACF397F8C1AC730DBC38A3E137ECD1AB66591C8C3C9"
TOKEN = "EAAGm0PX4ZCpsBAKZBnotarealtoken1234"
META = {"meta_app_id": "1234567890123", "install_referrer_decryption_key": KEY,
        "access_token": TOKEN, "event_mapping": {"purchase": "fb_mobile_purchase"}}
GOOGLE = {"link_id": "A1B2C3D4E5F60718293A4B5C6D7E8F90",
          "event_mapping": {"purchase": "in_app_purchase", "level_up": "level_achieved"}}


def url(app, kind=""):
    return f"/api/v1/apps/{app.id}/integrations" + (f"/{kind}" if kind else "")


def test_an_app_without_integrations_lists_both_as_not_set(owner_api, app):
    response = owner_api.get(url(app))
    assert response.status_code == 200
    integrations = response.json()["data"]["integrations"]
    costs = {network: integrations[network].pop("cost") for network in integrations}
    assert integrations == {
        "meta": {"configured": False, "meta_app_id": None,
                 "install_referrer_decryption_key_last4": None, "access_token_last4": None,
                 "event_mapping": {}, "view_window_hours": None, "updated_at": None},
        "google_ads": {"configured": False, "link_id_last4": None, "event_mapping": {},
                       "updated_at": None},
        "tiktok": {}, "apple_ads": {}}
    assert {network: (cost["configured"], cost["media_source"], cost["last_pull"])
            for network, cost in costs.items()} == {
        "meta": (False, "meta", None), "google_ads": (False, "google", None),
        "tiktok": (False, "tiktok", None), "apple_ads": (False, "apple_search_ads", None)}


def test_an_admin_sets_meta_up_and_no_answer_holds_a_secret(owner_api, app):
    response = owner_api.put(url(app, "meta"), META, format="json")
    assert response.status_code == 200, response.content
    meta = response.json()["data"]["meta"]
    assert (meta["configured"], meta["meta_app_id"], meta["install_referrer_decryption_key_last4"],
            meta["access_token_last4"], meta["view_window_hours"]) == (
        True, "1234567890123", "c3c9", "1234", 24)
    listed = owner_api.get(url(app)).content.decode()
    for body in (response.content.decode(), listed):
        assert KEY.lower() not in body.lower() and TOKEN not in body
    integration = selectors.meta_of(app.id)
    assert integration.decryption_key == bytes.fromhex(KEY)
    assert integration.access_token == TOKEN


def test_a_put_without_the_secrets_keeps_them_and_null_removes_the_token(owner_api, app):
    owner_api.put(url(app, "meta"), META, format="json")
    response = owner_api.put(url(app, "meta"), {"meta_app_id": "42", "view_window_hours": 48,
                                                "event_mapping": {}}, format="json")
    assert response.status_code == 200
    kept = selectors.meta_of(app.id)
    assert (kept.meta_app_id, kept.decryption_key, kept.access_token, kept.view_window_hours,
            kept.event_mapping) == ("42", bytes.fromhex(KEY), TOKEN, 48, {})
    owner_api.put(url(app, "meta"), {"meta_app_id": "42", "access_token": None}, format="json")
    assert selectors.meta_of(app.id).access_token is None


def test_the_first_set_up_needs_the_secret(owner_api, app):
    response = owner_api.put(url(app, "meta"), {"meta_app_id": "42"}, format="json")
    assert response.status_code == 400
    assert "install_referrer_decryption_key" in response.json()["error"]["details"]
    response = owner_api.put(url(app, "google_ads"), {"event_mapping": {}}, format="json")
    assert response.status_code == 400
    assert "link_id" in response.json()["error"]["details"]
    assert not MetaConfig.objects.exists() and not GoogleAdsConfig.objects.exists()


def test_an_admin_sets_google_ads_up(owner_api, app):
    response = owner_api.put(url(app, "google_ads"), GOOGLE, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["google_ads"]["link_id_last4"] == "8F90"
    assert GOOGLE["link_id"] not in owner_api.get(url(app)).content.decode()
    assert selectors.google_ads_of(app.id) == selectors.GoogleAdsIntegration(
        link_id=GOOGLE["link_id"], event_mapping=GOOGLE["event_mapping"])


def test_delete_removes_one_integration(owner_api, app):
    owner_api.put(url(app, "meta"), META, format="json")
    owner_api.put(url(app, "google_ads"), GOOGLE, format="json")
    response = owner_api.delete(url(app, "meta"))
    assert (response.status_code, response.json()["data"]) == (200, {"success": True})
    assert selectors.meta_of(app.id) is None and selectors.google_ads_of(app.id) is not None
    assert owner_api.delete(url(app, "meta")).status_code == 404
    assert owner_api.delete(url(app, "google_ads")).status_code == 200
    assert not GoogleAdsConfig.objects.exists()


def test_another_organizations_app_is_not_found(outsider_api, owner_api, app):
    owner_api.put(url(app, "meta"), META, format="json")
    assert outsider_api.get(url(app)).status_code == 404
    assert outsider_api.put(url(app, "meta"), META, format="json").status_code == 404
    assert outsider_api.delete(url(app, "meta")).status_code == 404
    assert selectors.meta_of(app.id) is not None


def test_a_marketer_neither_reads_nor_changes_integrations(owner, app):
    marketer = client_for(UserFactory(email="marketer@example.com",
                                      organization=owner.organization, role="marketer"))
    assert marketer.get(url(app)).status_code == 403
    response = marketer.put(url(app, "meta"), META, format="json")
    assert response.status_code == 403
    assert marketer.delete(url(app, "google_ads")).status_code == 403
    assert not MetaConfig.objects.exists()


def test_without_a_token_nothing_is_answered(api, app):
    assert api.get(url(app)).status_code == 401


@pytest.mark.parametrize(("field", "value"), [
    ("install_referrer_decryption_key", "abc"),
    ("install_referrer_decryption_key", "g" * 64),
    ("install_referrer_decryption_key", "a" * 65),
    ("install_referrer_decryption_key", 12),
    ("meta_app_id", "12ab"),
    ("meta_app_id", 1234),
    ("meta_app_id", "1" * 33),
    ("access_token", "short"),
    ("access_token", "has spaces in it, which tokens never do"),
    ("access_token", 5),
    ("event_mapping", ["purchase"]),
    ("event_mapping", {"purchase": 5}),
    ("event_mapping", {"purchase": ""}),
    ("event_mapping", {"purchase": "<script>"}),
    ("event_mapping", {"": "fb_mobile_purchase"}),
    ("event_mapping", {"x" * 129: "fb_mobile_purchase"}),
    ("event_mapping", {f"event_{n}": "fb_mobile_purchase" for n in range(51)}),
    ("view_window_hours", 0),
    ("view_window_hours", 169),
    ("view_window_hours", "24"),
    ("view_window_hours", True),
    ("unknown", 1),
])
def test_every_bad_meta_field_is_a_400_naming_it(owner_api, app, field, value):
    response = owner_api.put(url(app, "meta"), {**META, field: value}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == [field]
    assert not MetaConfig.objects.exists()


@pytest.mark.parametrize(("field", "value"), [
    ("link_id", "short"), ("link_id", "has/slash/in/it"), ("link_id", "x" * 65),
    ("link_id", None), ("event_mapping", "purchase"), ("event_mapping", {"a": "b" * 101}),
])
def test_every_bad_google_ads_field_is_a_400_naming_it(owner_api, app, field, value):
    response = owner_api.put(url(app, "google_ads"), {**GOOGLE, field: value}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == [field]


def test_a_body_that_is_not_an_object_is_a_400(owner_api, app):
    assert owner_api.put(url(app, "meta"), [1], format="json").status_code == 400


def test_the_admin_lists_integrations_without_their_secrets(client, owner_api, app):
    from accounts.models import User

    owner_api.put(url(app, "meta"), META, format="json")
    owner_api.put(url(app, "google_ads"), GOOGLE, format="json")
    client.force_login(User.objects.create_superuser("ops@example.com", "operator-password"))
    for config in (MetaConfig.objects.get(), GoogleAdsConfig.objects.get()):
        listing = f"/admin/networks/{type(config).__name__.lower()}/"
        for page in (listing, f"{listing}{config.pk}/change/"):
            html = client.get(page).content.decode()
            assert KEY.lower() not in html.lower() and TOKEN not in html
            assert GOOGLE["link_id"] not in html
            assert config.app.name in html
