"""The click redirector's copy of an app (`app_target`) is kept in each process and dropped
everywhere the moment the app changes or goes, through the API or the admin."""

import pytest
from django.test import Client

from apps_registry import selectors
from tests.helpers import served_from_memory

pytestmark = [pytest.mark.django_db, pytest.mark.redis]

NEW_STORE_URL = "https://play.google.com/store/apps/details?id=com.example.moved"


@pytest.fixture
def cached_target(app, live_local_caches):
    assert served_from_memory(lambda: selectors.app_target(app_id=app.id))


def test_a_store_url_changed_through_the_api_reaches_the_redirector_at_once(
        owner_api, app, cached_target):
    response = owner_api.put(f"/api/v1/apps/{app.id}", {"play_store_url": NEW_STORE_URL},
                             format="json")
    assert response.status_code == 200
    assert selectors.app_target(app_id=app.id).play_store_url == NEW_STORE_URL


def test_an_app_deleted_through_the_api_is_unknown_to_the_redirector_at_once(
        owner_api, app, cached_target):
    assert owner_api.delete(f"/api/v1/apps/{app.id}").status_code == 200
    assert selectors.app_target(app_id=app.id) is None


def test_an_app_deleted_in_the_admin_is_unknown_to_the_redirector_at_once(
        app, cached_target, django_user_model):
    operator = django_user_model.objects.create_superuser("ops@example.com", "correct horse")
    client = Client()
    client.force_login(operator)
    response = client.post(f"/admin/apps_registry/app/{app.id}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert selectors.app_target(app_id=app.id) is None
