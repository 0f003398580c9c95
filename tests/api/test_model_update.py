"""model_update: the one partial update every service applies (apps, links, postbacks,
webhooks)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps_registry.models import App
from attribution_site.model_update import model_update
from tests.factories import AppFactory

pytestmark = pytest.mark.django_db


def test_the_changed_fields_and_updated_at_are_written_and_nothing_else():
    app = AppFactory(name="Before")
    stale = App.objects.get(id=app.id)
    App.objects.filter(id=app.id).update(play_store_url="https://play.google.com/store/apps/new")

    assert model_update(instance=stale, changes={"name": "After"}, updatable=("name",)) is True

    stored = App.objects.get(id=app.id)
    assert stored.name == "After"
    assert stored.updated_at > app.updated_at
    assert stored.play_store_url == "https://play.google.com/store/apps/new"


def test_no_changes_write_nothing():
    app = AppFactory()

    with CaptureQueriesContext(connection) as queries:
        assert model_update(instance=app, changes={}, updatable=("name",)) is False

    assert len(queries) == 0
    assert App.objects.get(id=app.id).updated_at == app.updated_at


def test_a_field_the_service_does_not_name_is_a_bug_and_nothing_is_written():
    app = AppFactory(name="Kept")

    with pytest.raises(ValueError, match="platform is not updatable"):
        model_update(instance=app, changes={"name": "Changed", "platform": "ios"},
                     updatable=("name",))

    assert App.objects.get(id=app.id).name == "Kept"
