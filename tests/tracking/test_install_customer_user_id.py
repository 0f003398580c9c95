"""An install's optional `customer_user_id` (AppsFlyer's CUID): accepted on POST /installs, at
most 255 characters, shown by GET /installs/{id}; what a privacy request by customer id finds."""

from __future__ import annotations

import pytest

from tests.tracking.helpers import ANDROID_SDK, PUBLIC_IP, install_body
from tracking.models import Install

pytestmark = pytest.mark.django_db


def post(sdk, app, **fields):
    return sdk.post("/api/v1/installs", install_body(app, device_id="gaid-77", **fields),
                    format="json", HTTP_USER_AGENT=ANDROID_SDK, REMOTE_ADDR=PUBLIC_IP)


@pytest.mark.parametrize("value", ["user-42", "Ünïcode-Kunde 7"])
def test_the_customer_id_is_stored_and_shown(sdk, owner_api, app, value):
    response = post(sdk, app, customer_user_id=value)
    assert response.status_code == 201
    install_id = response.json()["data"]["installId"]
    assert Install.objects.get(id=install_id).customer_user_id == value
    shown = owner_api.get(f"/api/v1/installs/{install_id}").json()["data"]["install"]
    assert shown["customer_user_id"] == value


def test_without_one_it_is_null(sdk, owner_api, app):
    install_id = post(sdk, app).json()["data"]["installId"]
    shown = owner_api.get(f"/api/v1/installs/{install_id}").json()["data"]["install"]
    assert shown["customer_user_id"] is None


@pytest.mark.parametrize(("value", "message"), [("u" * 256, "255"), (42, "string")])
def test_a_bad_customer_id_is_a_400_naming_it(sdk, app, value, message):
    response = post(sdk, app, customer_user_id=value)
    assert response.status_code == 400
    error = response.json()["error"]
    assert message in error["details"]["customer_user_id"][0]
    assert not Install.objects.exists()
