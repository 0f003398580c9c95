"""prune_clicks: expired clicks leave the hot store, the archive keeps everything."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.tracking.helpers import click_through
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


# --- On PostgreSQL: whole week partitions go ------------------------------------------------

def _hot_partitions() -> set[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c "
                       "ON c.oid = i.inhrelid WHERE i.inhparent = 'tracking_click'::regclass")
        return {name for (name,) in cursor.fetchall()}


def _click_at(app, moment):
    values = {"app": app, "clicked_at": moment, "media_source": "fb"}
    ClickArchive.objects.create(**values)
    return Click.objects.create(**values).id


@pytest.mark.postgres
def test_prune_drops_whole_expired_weeks_and_keeps_the_one_straddling_the_cutoff(app):
    from tracking import partition_sql, partitions
    from tracking.services import clicks_prune

    today = partitions.day_of(timezone.now())
    monday = partitions.day_start(today - timedelta(days=today.weekday()))
    now = monday + timedelta(hours=12)  # cutoff: last Monday, 11:00
    week = {n: monday - timedelta(weeks=n) for n in (1, 2, 3)}
    _click_at(app, week[3] + timedelta(days=6, hours=20))
    for day in (0, 4):
        _click_at(app, week[2] + timedelta(days=day, hours=20))
    expired_but_same_week = _click_at(app, week[1] + timedelta(hours=10, minutes=59))
    in_window = _click_at(app, week[1] + timedelta(hours=11, minutes=1))
    partition_sql.partitions_ensure(now=timezone.now())  # each past week gets its partition
    dropped = {partitions.partition_name("tracking_click", partitions.Period(
        week[n].date(), partitions.WEEK)) for n in (3, 2)}
    straddling = partitions.partition_name("tracking_click", partitions.Period(
        week[1].date(), partitions.WEEK))
    assert dropped | {straddling} <= _hot_partitions()
    _click_at(app, monday - timedelta(days=30))  # outside every partition: in the default

    so_far = []
    assert clicks_prune(now=now, progress=so_far.append) == 4
    assert so_far == [1, 3, 4]  # a partition at a time, oldest first, then the default's batch
    assert not dropped & _hot_partitions() and straddling in _hot_partitions()
    # the straddling week waits for a later run, whole: the waterfall bounds clicked_at itself
    assert set(Click.objects.values_list("id", flat=True)) == {expired_but_same_week, in_window}
    assert ClickArchive.objects.count() == 6
    assert clicks_prune(now=now) == 0
    assert clicks_prune(now=now + timedelta(days=6)) == 0  # the week still straddles it
    assert clicks_prune(now=now + timedelta(days=7)) == 2
    assert straddling not in _hot_partitions()
    assert ClickArchive.objects.count() == 6


@pytest.mark.postgres
def test_prune_by_command_counts_the_clicks_of_dropped_partitions(app):
    from tracking import partition_sql

    for _ in range(2):  # their week ended 8 days ago at the latest: wholly past the cutoff
        _click_at(app, timezone.now() - timedelta(days=15))
    partition_sql.partitions_ensure(now=timezone.now())
    out = StringIO()
    call_command("prune_clicks", stdout=out)
    assert "deleted 2 clicks so far" in out.getvalue()
    assert "done: 2 expired clicks removed from the hot store" in out.getvalue()
    out = StringIO()
    call_command("prune_clicks", stdout=out)
    assert "done: 0 expired clicks removed from the hot store" in out.getvalue()
    assert ClickArchive.objects.count() == 2
