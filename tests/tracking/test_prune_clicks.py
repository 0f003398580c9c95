"""prune_clicks: expired clicks leave the hot store, the archive keeps everything."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.tracking.conftest import click_through
from tracking.models import Click, ClickArchive

pytestmark = pytest.mark.django_db


def test_prune_removes_only_expired_hot_clicks_in_batches(api, app):
    for _ in range(5):
        click_through(api, app)
    old_ids = list(Click.objects.values_list("id", flat=True)[:3])
    Click.objects.filter(id__in=old_ids).update(clicked_at=timezone.now() - timedelta(days=8))
    out = StringIO()
    call_command("prune_clicks", "--batch-size", "2", stdout=out)
    assert Click.objects.count() == 2
    assert ClickArchive.objects.count() == 5
    assert "deleted 2 clicks so far" in out.getvalue()
    assert "done: 3 expired clicks removed" in out.getvalue()


def test_prune_twice_is_harmless(api, app):
    click_through(api, app)
    call_command("prune_clicks", stdout=StringIO())
    call_command("prune_clicks", stdout=StringIO())
    assert Click.objects.count() == 1


def test_prune_runs_as_a_scheduled_task(api, app, settings):
    from tracking.tasks import prune_clicks

    click_through(api, app)
    Click.objects.update(clicked_at=timezone.now() - timedelta(days=30))
    assert prune_clicks() == 1
    assert "tracking.prune_clicks" in settings.CELERY_BEAT_SCHEDULE


def test_prune_keeps_an_hour_past_the_window_for_the_analytics_pass(api, app):
    # reporting.recent_device_clicks reads a new install's whole window from the hot store.
    for _ in range(2):
        click_through(api, app)
    kept, gone = Click.objects.values_list("id", flat=True)
    now = timezone.now()
    Click.objects.filter(id=kept).update(clicked_at=now - timedelta(days=7, minutes=30))
    Click.objects.filter(id=gone).update(clicked_at=now - timedelta(days=7, hours=2))
    call_command("prune_clicks", stdout=StringIO())
    assert list(Click.objects.values_list("id", flat=True)) == [kept]
