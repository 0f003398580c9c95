"""audit/actions.py: an entry's action and target from the URL. No database."""

import uuid

import pytest

from audit.actions import action_of, answer_id, target_of, url_object_id

APP, LINK = uuid.uuid4(), uuid.uuid4()


@pytest.mark.parametrize("name,method,kwargs,action", [
    ("postback-list", "POST", {}, "postbacks.create"),
    ("postback-detail", "PUT", {"postback_id": 1}, "postbacks.update"),
    ("postback-detail", "DELETE", {"postback_id": 1}, "postbacks.delete"),
    ("postback-test", "POST", {"postback_id": 1}, "postbacks.test"),
    ("app-detail", "PATCH", {"app_id": APP}, "apps.update"),
    ("app-keys", "POST", {"app_id": APP}, "app_keys.create"),
    ("key-detail", "DELETE", {"key_id": "k"}, "keys.delete"),
    ("fraud-settings", "PUT", {}, "fraud_settings.update"),
    ("privacy-request-detail", "DELETE", {}, "privacy_requests.delete"),
    ("data-destination-list", "POST", {}, "data_destinations.create"),
    ("audit-log", "POST", {}, "audit_log.create"),
])
def test_the_api_names_an_action_by_its_route_and_method(name, method, kwargs, action):
    assert action_of(name, method, kwargs) == action


@pytest.mark.parametrize("name,kwargs,action", [
    ("app-new", {}, "apps.create"),
    ("app-edit", {"app_id": APP}, "apps.update"),
    ("app-delete", {"app_id": APP}, "apps.delete"),
    ("key-revoke", {"app_id": APP, "key_id": "k"}, "keys.revoke"),
    ("link-edit", {"app_id": APP, "link_id": LINK}, "links.update"),
    ("delivery-new", {"app_id": APP, "kind": "postback"}, "postbacks.create"),
    ("delivery-active", {"app_id": APP, "kind": "webhook", "config_id": 1}, "webhooks.activate"),
    ("fraud-settings", {"app_id": APP}, "fraud_settings.create"),
    ("privacy", {"app_id": APP}, "privacy.create"),
])
def test_the_console_names_the_same_changes_alike(name, kwargs, action):
    assert action_of(name, "POST", kwargs) == action


def test_a_route_without_a_name_still_gets_an_action():
    assert action_of(None, "DELETE", {}) == "unnamed.delete"


def test_the_target_is_the_urls_last_id_or_a_creations_new_id():
    kwargs = {"app_id": APP, "link_id": LINK}

    assert url_object_id(kwargs) == str(LINK)
    assert target_of("links.delete", url_kwargs=kwargs, created_id=str(APP)) == str(LINK)
    assert target_of("links.create", url_kwargs={"app_id": APP}, created_id="new") == "new"
    assert target_of("links.create", url_kwargs={"app_id": APP}, created_id="") == str(APP)
    assert target_of("sso.update", url_kwargs={}, created_id="") == ""


def test_an_answer_names_its_id_or_the_one_object_it_wraps():
    assert answer_id({"id": 7, "name": "x"}) == "7"
    assert answer_id({"postback": {"id": "p"}, "message": "ok"}) == "p"
    assert answer_id({"a": {"id": 1}, "b": {"id": 2}}) == ""
    assert answer_id([{"id": 1}]) == "" and answer_id(None) == ""
