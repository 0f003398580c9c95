"""Migrations 0008-0009 on PostgreSQL with rows in the tables: back to plain tables and forward
to day partitions again, every row, id, key and commit-order stamp kept."""

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tracking import partitions
from tracking.models import Click, ClickArchive, Event, EventKey

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = ("tracking", "0007_install_att_status_default_apple_ads")


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


@pytest.fixture(autouse=True)
def _only_the_partitions_there_were():
    """This test commits DDL: the partitions its old rows get must not outlive it."""
    before = _partitions()
    yield
    with connection.cursor() as cursor:
        for name in sorted(_partitions() - before):
            cursor.execute(f"DROP TABLE {name}")


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
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    assert {_relkind(t) for t in TABLES} == {"p"}
    assert Click.objects.get().id == click.id
    assert ClickArchive.objects.get().id == archived.id
    assert _rows("SELECT id, txid FROM tracking_event WHERE id < %s ORDER BY id",
                 [plain_id]) == stamps
    # the backfill made a key for every stored client id
    assert set(EventKey.objects.values_list("event_id", flat=True)) == {"e-0", "e-1"}
    # a day with rows got its partition, and the old row is in it
    old_day = partitions.partition_name("tracking_clickarchive", partitions.day_of(long_ago))
    assert _rows("SELECT tableoid::regclass::text FROM tracking_clickarchive") == [(old_day,)]
    # the event id's sequence continues after every id handed out
    assert Event.objects.create(app=app, event_name="y", session_id=uuid.uuid4(),
                                occurred_at=now).id == plain_id + 1
