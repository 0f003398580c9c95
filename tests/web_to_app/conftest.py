"""A shop's web app with its iOS and Android apps, all of the owner's organization."""

from __future__ import annotations

import pytest

from tests.factories import AppFactory
from tests.web_to_app.helpers import (
    ORIGIN,
)


@pytest.fixture
def web_app(owner):
    return AppFactory(organization=owner.organization, name="Shop web", platform="web",
                      package_name=None, play_store_url=None, app_store_url=None,
                      domain="shop.example")


@pytest.fixture
def android_app(owner):
    return AppFactory(organization=owner.organization, name="Shop Android")


@pytest.fixture
def ios_app(owner):
    return AppFactory(organization=owner.organization, name="Shop iOS", platform="ios",
                      package_name=None, play_store_url=None, bundle_id="com.shop.ios")


@pytest.fixture
def linked(owner_api, web_app, android_app, ios_app):
    """The web app names both mobile apps."""
    response = owner_api.put(f"/api/v1/apps/{web_app.id}", {
        "linked_apps": [str(ios_app.id), str(android_app.id)]}, format="json")
    assert response.status_code == 200, response.json()
    return web_app


@pytest.fixture
def web_key(web_app):
    from tests.factories import issue_key

    return issue_key(web_app, kind="web", allowed_origins=[ORIGIN])


@pytest.fixture
def banner(owner_api, linked):
    response = owner_api.put(f"/api/v1/apps/{linked.id}/banner", {
        "title": "Shop in the app", "body": "Faster checkout", "button": "Open",
        "platforms": ["android", "ios"], "deep_link_value": "product/{path}",
        "dismiss_days": 3}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["banner"]
