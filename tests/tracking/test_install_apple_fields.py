"""The install body's Apple fields (docs/apple.md): `att_status`, iOS's App Tracking
Transparency answer, kept on the install; `attribution_token`, the AdServices token, accepted as
text."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import AppFactory, issue_key
from tests.tracking.helpers import install_body
from tracking.models import Install

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("status", ["authorized", "denied", "restricted", "not_determined"])
def test_each_att_status_is_kept_on_the_install(owner, status):
    app = AppFactory(organization=owner.organization, platform="ios", package_name=None,
                     bundle_id="com.example.runner")
    sdk = APIClient()
    sdk.credentials(HTTP_X_API_KEY=issue_key(app))
    response = sdk.post("/api/v1/installs", install_body(app, platform="ios", att_status=status,
                                                         device_id=f"dev-{status}"),
                        format="json")
    assert response.status_code == 201
    assert Install.objects.get(device_id=f"dev-{status}").att_status == status


def test_an_install_without_att_status_keeps_it_empty(sdk, app):
    assert sdk.post("/api/v1/installs", install_body(app), format="json").status_code == 201
    assert Install.objects.get().att_status == ""


@pytest.mark.parametrize("status", ["maybe", 3, True, ["denied"]])
def test_an_unknown_att_status_is_refused_with_the_field_named(sdk, app, status):
    response = sdk.post("/api/v1/installs", install_body(app, att_status=status), format="json")
    assert response.status_code == 400
    assert "att_status" in response.json()["error"]["details"]
    assert not Install.objects.exists()


def test_an_attribution_token_is_accepted_and_a_huge_one_refused(sdk, app):
    ok = sdk.post("/api/v1/installs", install_body(app, attribution_token="a" * 500),
                  format="json")
    assert ok.status_code == 201
    too_long = sdk.post("/api/v1/installs", install_body(app, device_id="other",
                                                         attribution_token="a" * 4097),
                        format="json")
    assert too_long.status_code == 400
    assert "attribution_token" in too_long.json()["error"]["details"]
