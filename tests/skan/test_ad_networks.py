"""Ad network ids to the media source names reports show: seeded, editable, overridable per
app."""

from __future__ import annotations

import pytest

from skan import selectors, services
from skan.models import AdNetwork
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db


def test_the_common_networks_are_seeded():
    assert AdNetwork.objects.get(network_id="v9wttpbfk9.skadnetwork").name == "meta"
    assert AdNetwork.objects.get(network_id="cstr6suwn9.skadnetwork").name == "google"
    assert AdNetwork.objects.get(network_id="424m5254lk.skadnetwork").name == "snapchat"


def test_a_report_names_a_network_by_the_shared_table_whatever_the_case():
    app = AppFactory()
    assert selectors.media_source_for(app_id=app.id,
                                      ad_network_id="V9WTTPBFK9.skadnetwork") == "meta"


def test_an_apps_own_name_wins_for_that_app_only():
    app, other = AppFactory(), AppFactory()
    services.ad_network_name_set(app=app, network_id="v9wttpbfk9.skadnetwork",
                                 name="facebook_ads")
    assert selectors.media_source_for(app_id=app.id,
                                      ad_network_id="v9wttpbfk9.skadnetwork") == "facebook_ads"
    assert selectors.media_source_for(app_id=other.id,
                                      ad_network_id="v9wttpbfk9.skadnetwork") == "meta"
    assert selectors.media_sources_for(app_id=app.id)["v9wttpbfk9.skadnetwork"] == "facebook_ads"


def test_setting_a_name_again_replaces_it_and_clearing_falls_back():
    app = AppFactory()
    services.ad_network_name_set(app=app, network_id="x.skadnetwork", name="one")
    services.ad_network_name_set(app=app, network_id="X.skadnetwork", name="two")
    assert selectors.media_source_for(app_id=app.id, ad_network_id="x.skadnetwork") == "two"
    assert services.ad_network_name_clear(app=app, network_id="x.skadnetwork")
    assert selectors.media_source_for(app_id=app.id, ad_network_id="x.skadnetwork") == (
        "x.skadnetwork")


def test_an_unnamed_network_shows_as_its_id():
    app = AppFactory()
    assert selectors.media_source_for(app_id=app.id, ad_network_id="zzz.skadnetwork") == (
        "zzz.skadnetwork")


def test_an_operator_edits_the_names_in_the_admin(client, django_user_model):
    admin = django_user_model.objects.create_superuser(email="ops@example.com",
                                                       password="pw-123456789")
    client.force_login(admin)
    assert client.get("/admin/skan/adnetwork/").status_code == 200
    assert client.get("/admin/skan/postback/").status_code == 200
    assert client.get("/admin/skan/refusedpostback/").status_code == 200
    assert client.get("/admin/skan/appadnetworkname/").status_code == 200


def test_a_network_id_typed_in_capitals_is_kept_lower_case():
    AdNetwork.objects.create(network_id=" ABC.skadnetwork", name="abc")
    assert AdNetwork.objects.filter(network_id="abc.skadnetwork").exists()
