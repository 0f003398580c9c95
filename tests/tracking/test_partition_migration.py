"""Migrations 0008-0009 on PostgreSQL with rows in the tables: back to plain tables and forward
to partitions again, every row, id, key and commit-order stamp kept; and 0015, the hot store's
day partitions becoming weeks without a click copied or refused."""

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tracking import partition_sql, partitions
from tracking.models import Click, ClickArchive, Event, EventKey

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = ("tracking", "0007_install_att_status_default_apple_ads")
BEFORE_WEEKS = ("tracking", "0014_install_match_type_google_ads")


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def _rows(sql, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _relkind(table):
    return _rows("SELECT relkind FROM pg_class WHERE oid = %s::regclass", [table])[0][0]


TABLES = ("tracking_click", "tracking_clickarchive", "tracking_event")


def _partitions():
    return {name for (name,) in _rows(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = ANY(%s::regclass[])", [list(TABLES)])}


def _leaf():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.fixture(autouse=True)
def _only_the_partitions_there_were():
    """These tests commit DDL: the partitions their old rows get must not outlive them, and
    the hot store's weeks must be weeks again (a week whose days held clicks stays days)."""
    before = _partitions()
    yield
    Click.objects.all().delete()
    _migrate([BEFORE_WEEKS])
    _migrate(_leaf())
    partition_sql.partitions_ensure(now=timezone.now())  # this week's, if a test dropped it
    with connection.cursor() as cursor:
        for name in sorted(_partitions() - before):
            cursor.execute(f"DROP TABLE {name}")
    assert _partitions() == before


def test_the_tables_go_back_to_plain_and_forward_to_partitions_with_their_rows(app):
    now = timezone.now()
    long_ago = now - timedelta(days=40)
    click = Click.objects.create(app=app, clicked_at=now - timedelta(days=2))
    archived = ClickArchive.objects.create(app=app, clicked_at=long_ago)
    events = [Event.objects.create(app=app, event_name="open", session_id=uuid.uuid4(),
                                   occurred_at=now, received_at=at, event_id=f"e-{n}")
              for n, at in enumerate((now, long_ago))]
    EventKey.objects.bulk_create([EventKey(app=app, event_id=e.event_id) for e in events])
    stamps = _rows("SELECT id, txid FROM tracking_event ORDER BY id")
    last_id = _rows("SELECT last_value FROM tracking_event_id_seq")[0][0]
    try:
        _migrate([BEFORE])
        assert {_relkind(t) for t in TABLES} == {"r"}
        assert _rows("SELECT id, txid FROM tracking_event ORDER BY id") == stamps
        # the unique client id is a constraint again, the keys table gone
        assert _rows("SELECT count(*) FROM pg_indexes WHERE indexname = "
                     "'event_unique_client_id'") == [(1,)]
        assert _rows("SELECT to_regclass('tracking_eventkey')") == [(None,)]
        with connection.cursor() as cursor:  # the id is an identity column, continuing
            cursor.execute("INSERT INTO tracking_event (app_id, event_name, properties, "
                           "session_id, occurred_at, received_at) VALUES (%s, 'x', '{}', %s, "
                           "now(), now()) RETURNING id", [app.id, uuid.uuid4()])
            (plain_id,) = cursor.fetchone()
        assert plain_id == last_id + 1
    finally:
        _migrate(_leaf())

    assert {_relkind(t) for t in TABLES} == {"p"}
    assert Click.objects.get().id == click.id
    assert ClickArchive.objects.get().id == archived.id
    assert _rows("SELECT id, txid FROM tracking_event WHERE id < %s ORDER BY id",
                 [plain_id]) == stamps
    # the backfill made a key for every stored client id
    assert set(EventKey.objects.values_list("event_id", flat=True)) == {"e-0", "e-1"}
    # a day with rows got its partition, and the old row is in it
    old_day = partitions.partition_name("tracking_clickarchive",
                                        partitions.Period(partitions.day_of(long_ago)))
    assert _rows("SELECT tableoid::regclass::text FROM tracking_clickarchive") == [(old_day,)]
    # the event id's sequence continues after every id handed out
    assert Event.objects.create(app=app, event_name="y", session_id=uuid.uuid4(),
                                occurred_at=now).id == plain_id + 1


def _hot_partitions():
    return dict(_rows("SELECT c.relname, (SELECT count(*) FROM tracking_click t "
                      "WHERE t.tableoid = c.oid) FROM pg_inherits i "
                      "JOIN pg_class c ON c.oid = i.inhrelid "
                      "WHERE i.inhparent = 'tracking_click'::regclass"))


def test_the_hot_store_takes_weeks_where_its_days_are_empty_and_keeps_the_days_holding_clicks(
        app):
    from tracking.services import clicks_prune

    now = timezone.now()
    today = partitions.day_of(now)
    this_week = partitions.period_of(today, partitions.WEEK)
    next_week = partitions.period_of(today + timedelta(days=7), partitions.WEEK)
    partition_sql.partitions_ensure(now=now + timedelta(days=7))  # next week exists too
    _migrate([BEFORE_WEEKS])  # the code before weeks: each week back to its seven days
    hot = _hot_partitions()
    assert not [name for name in hot if name.startswith("tracking_click_w")]
    for week in (this_week, next_week):
        for n in range(7):
            day = partitions.Period(week.first + timedelta(days=n))
            assert partitions.partition_name("tracking_click", day) in hot
    click = Click.objects.create(app=app, clicked_at=now)  # clicks of this week in its days
    archived = ClickArchive.objects.create(app=app, clicked_at=now)
    # a day of next week beat never made: its click waits in the default partition
    missed = partitions.partition_name("tracking_click", partitions.Period(next_week.first))
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {missed}")
    waiting = Click.objects.create(app=app, clicked_at=partitions.day_start(next_week.first))
    assert _hot_partitions()["tracking_click_default"] == 1

    _migrate(_leaf())

    hot = _hot_partitions()
    today_name = partitions.partition_name("tracking_click", partitions.Period(today))
    assert hot[today_name] == 1  # the click was not moved: this week keeps its days
    assert partitions.partition_name("tracking_click", this_week) not in hot
    # its empty days became a week, which took the click waiting in the default partition
    assert hot[partitions.partition_name("tracking_click", next_week)] == 1
    assert hot["tracking_click_default"] == 0
    assert not [name for name in hot if partitions.partition_period("tracking_click", name)
                in [partitions.Period(next_week.first + timedelta(days=n)) for n in range(7)]]
    assert set(Click.objects.values_list("id", flat=True)) == {click.id, waiting.id}
    assert ClickArchive.objects.get().id == archived.id
    # the week's index names follow the model's, as beat's
    assert _rows("SELECT count(*) FROM pg_indexes WHERE indexname = %s",
                 [f"click_device_idx_w{next_week.first:%Y%m%d}"]) == [(1,)]

    # Beat goes on in weeks; once retention has dropped the days, a whole week follows.
    later = now + timedelta(days=15)
    cutoff = later - timedelta(days=7, hours=1)
    assert clicks_prune(now=later) == 1 + (next_week.end <= cutoff)
    hot = _hot_partitions()
    assert not [name for name in hot if name.startswith("tracking_click_p")]
    made = partition_sql.partitions_ensure(now=later)
    assert all(name.startswith("tracking_click_w") for name in made
               if name.startswith("tracking_click_"))
    assert partitions.partition_name(
        "tracking_click", partitions.period_of(partitions.day_of(later), partitions.WEEK)) in \
        _hot_partitions()
