"""The cost part of PUT /api/v1/apps/{id}/integrations/{network} and the cost-pulls endpoints:
an admin sets a connection up, no answer ever holds a secret (at most its last 4 characters), a
PUT that leaves a secret out keeps it, fields are checked, and a pull starts with a 202."""

from __future__ import annotations

import pytest

from networks.models import CostPull, SpendConnection
from tests.factories import UserFactory
from tests.helpers import client_for
from tests.networks.spend.helpers import COSTS, META_TOKEN, SECRETS

pytestmark = pytest.mark.django_db


def url(app, network, tail=""):
    return f"/api/v1/apps/{app.id}/integrations/{network}{tail}"


@pytest.mark.parametrize("network", ["meta", "google_ads", "tiktok", "apple_ads"])
def test_an_admin_sets_the_cost_part_and_no_answer_holds_a_secret(owner_api, app, network):
    response = owner_api.put(url(app, network), {"cost": COSTS[network]}, format="json")
    assert response.status_code == 200, response.content
    cost = response.json()["data"][network]["cost"]
    assert cost["configured"] and cost["enabled"] and cost["lookback_days"] == 7
    listing = owner_api.get(f"/api/v1/apps/{app.id}/integrations").content.decode()
    for secret in SECRETS:
        assert secret not in response.content.decode()
        assert secret not in listing
    stored = SpendConnection.objects.get(app=app, network=network)
    for secret in SECRETS:
        assert secret not in stored.secrets_encrypted


def test_a_put_without_the_secret_keeps_it(owner_api, app):
    owner_api.put(url(app, "meta"), {"cost": COSTS["meta"]}, format="json")
    response = owner_api.put(url(app, "meta"), {"cost": {
        "ad_account_id": "act_999", "lookback_days": 30, "campaign_ids": ["1", "2"]}},
        format="json")
    cost = response.json()["data"]["meta"]["cost"]
    assert cost["access_token_last4"] == META_TOKEN[-4:]
    assert cost["ad_account_id"] == "act_999" and cost["lookback_days"] == 30


def test_a_first_set_up_needs_its_secrets(owner_api, app):
    response = owner_api.put(url(app, "tiktok"), {"cost": {"advertiser_id": "7001"}},
                             format="json")
    assert response.status_code == 400
    assert "cost.access_token" in response.json()["error"]["details"]


def test_fields_are_checked(owner_api, app):
    response = owner_api.put(url(app, "google_ads"), {"cost": {
        **COSTS["google_ads"], "customer_id": "12-34", "lookback_days": 31, "extra": 1}},
        format="json")
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert {"cost.customer_id", "cost.lookback_days", "cost.extra"} <= set(details)


def test_a_developer_runs_pulls_and_a_marketer_neither_sets_nor_reads_them(app, owner,
                                                                             owner_api):
    """Pulls belong to the integration, which only the roles that configure apps read: a
    pull's error quotes the network's own answer."""
    owner_api.put(url(app, "tiktok"), {"cost": COSTS["tiktok"]}, format="json")
    marketer = client_for(UserFactory(organization=owner.organization, role="marketer"))
    assert marketer.put(url(app, "tiktok"), {"cost": COSTS["tiktok"]},
                        format="json").status_code == 403
    assert marketer.get(url(app, "tiktok", "/cost-pulls")).status_code == 403
    assert marketer.post(url(app, "tiktok", "/cost-pulls")).status_code == 403
    developer = client_for(UserFactory(organization=owner.organization, role="developer"))
    assert developer.get(url(app, "tiktok", "/cost-pulls")).status_code == 200


def test_a_pull_starts_with_a_202_and_is_listed(owner_api, app, settings):
    settings.TIKTOK_API_URL = "https://127.0.0.1:9"  # nothing answers: it fails in words
    owner_api.put(url(app, "tiktok"), {"cost": COSTS["tiktok"]}, format="json")
    response = owner_api.post(url(app, "tiktok", "/cost-pulls"))
    assert response.status_code == 202
    pull_id = response.json()["data"]["pull"]["id"]
    assert CostPull.objects.filter(id=pull_id).exists()
    listed = owner_api.get(url(app, "tiktok", "/cost-pulls")).json()["data"]["pulls"]
    assert [p["id"] for p in listed] == [pull_id]
    assert listed[0]["days"] == 7


def test_another_organizations_app_has_no_cost_pulls(outsider_api, app):
    assert outsider_api.get(url(app, "meta", "/cost-pulls")).status_code == 404


def test_an_unknown_network_has_no_cost_pulls(owner_api, app):
    assert owner_api.get(url(app, "myspace", "/cost-pulls")).status_code == 404
