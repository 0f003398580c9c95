"""Ad network names per app through the API: the shared names listed, an app's own name set,
listed and used by the reports' selector, cleared back to the shared one; scoping and bad
input with the envelope."""

from __future__ import annotations

import pytest

from skan.models import AppAdNetworkName
from skan.selectors import media_source_for

pytestmark = pytest.mark.django_db

META = "v9wttpbfk9.skadnetwork"


def url(app, network_id=None):
    base = f"/api/v1/apps/{app.id}/ad-networks"
    return f"{base}/{network_id}" if network_id else base


def test_the_list_holds_the_seeded_shared_names(owner_api, app):
    response = owner_api.get(url(app))
    assert response.status_code == 200
    rows = {row["network_id"]: row for row in response.json()["data"]["ad_networks"]}
    assert rows[META]["source"] == "shared" and rows[META]["name"]


def test_an_apps_own_name_wins_in_the_list_and_in_the_reports(owner_api, app):
    response = owner_api.put(url(app, META.upper()), {"name": "meta-ios"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["ad_network"] == {"network_id": META, "name": "meta-ios",
                                                     "source": "app"}
    rows = {row["network_id"]: row for row in owner_api.get(url(app)).json()["data"]
            ["ad_networks"]}
    assert rows[META] == {"network_id": META, "name": "meta-ios", "source": "app"}
    assert media_source_for(app_id=app.id, ad_network_id=META) == "meta-ios"


def test_clearing_goes_back_to_the_shared_name(owner_api, app):
    owner_api.put(url(app, META), {"name": "meta-ios"}, format="json")
    assert owner_api.delete(url(app, META)).status_code == 200
    assert not AppAdNetworkName.objects.exists()
    assert media_source_for(app_id=app.id, ad_network_id=META) != "meta-ios"
    again = owner_api.delete(url(app, META))
    assert again.status_code == 404
    assert again.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(("body", "field"), [({}, "name"), ({"name": ""}, "name"),
                                             ({"name": 5}, "name"),
                                             ({"name": "x", "extra": 1}, "extra")])
def test_a_bad_name_is_a_400_naming_the_field(owner_api, app, body, field):
    response = owner_api.put(url(app, META), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not AppAdNetworkName.objects.exists()


def test_a_malformed_network_id_is_a_400(owner_api, app):
    response = owner_api.put(url(app, "-bad id"), {"name": "x"}, format="json")
    assert response.status_code == 400
    assert "network_id" in response.json()["error"]["details"]


def test_another_organizations_app_is_a_404(owner_api, outsider):
    from tests.factories import AppFactory

    theirs = AppFactory(organization=outsider.organization)
    assert owner_api.get(url(theirs)).status_code == 404
    assert owner_api.put(url(theirs, META), {"name": "x"}, format="json").status_code == 404
    assert not AppAdNetworkName.objects.exists()
