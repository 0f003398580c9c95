"""Time partitions of clicks and events (the hot store in weeks, the archive and events in days):
the rules (pure), the tables migrate makes on PostgreSQL, beat's partitions_ensure, the default
partition and /readyz; SQLite's plain tables."""

import logging
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tracking import partition_sql, partitions
from tracking.models import Click, ClickArchive, Event
from tracking.partitions import DAY, WEEK, Period

TABLES = ("tracking_click", "tracking_clickarchive", "tracking_event")
TIME_COLUMN = {"tracking_click": "clicked_at", "tracking_clickarchive": "clicked_at",
               "tracking_event": "received_at"}
SPAN = {"tracking_click": WEEK, "tracking_clickarchive": DAY, "tracking_event": DAY}
MODEL_INDEXES = {"tracking_click": {"click_device_idx", "click_network_idx", "click_age_idx"},
                 "tracking_clickarchive": {"click_archive_app_time_idx",
                                           "click_archive_link_time_idx",
                                           "tracking_clickarchive_txid_idx"},
                 "tracking_event": {"event_app_time_idx", "event_install_time_idx",
                                    "tracking_event_txid_idx"}}


# --- The rules ------------------------------------------------------------------------------

def test_a_partition_is_named_by_its_table_and_first_utc_day_a_week_by_its_monday():
    assert partitions.partition_name("tracking_clickarchive", Period(date(2026, 3, 9))) == \
        "tracking_clickarchive_p20260309"
    assert partitions.partition_name("tracking_click", Period(date(2026, 3, 9), WEEK)) == \
        "tracking_click_w20260309"
    assert partitions.default_name("tracking_event") == "tracking_event_default"


def test_only_partition_names_the_rules_give_read_as_a_range():
    read = partitions.partition_period
    assert read("tracking_click", "tracking_click_p20260309") == Period(date(2026, 3, 9))
    assert read("tracking_click", "tracking_click_w20260309") == Period(date(2026, 3, 9), WEEK)
    assert read("tracking_click", "tracking_click_default") is None
    assert read("tracking_click", "tracking_click_p20261399") is None
    assert read("tracking_click", "tracking_click_p2026030") is None
    assert read("tracking_click", "tracking_click_w20260310") is None  # a Tuesday: no week's
    # the archive's partitions are not the hot store's
    assert read("tracking_click", "tracking_clickarchive_p20260309") is None


def test_a_day_runs_from_utc_midnight_and_a_week_from_monday_to_monday():
    assert partitions.day_start(date(2026, 3, 9)) == datetime(2026, 3, 9, tzinfo=UTC)
    late_in_new_york = datetime(2026, 3, 9, 23, 30, tzinfo=UTC).astimezone(
        timezone.get_fixed_timezone(-300))
    assert partitions.day_of(late_in_new_york) == date(2026, 3, 9)
    week = partitions.period_of(date(2026, 3, 15), WEEK)  # a Sunday
    assert (week.start, week.end) == (datetime(2026, 3, 9, tzinfo=UTC),
                                      datetime(2026, 3, 16, tzinfo=UTC))
    assert partitions.period_of(date(2026, 3, 16), WEEK) == Period(date(2026, 3, 16), WEEK)
    assert partitions.period_of(date(2026, 3, 15), DAY) == Period(date(2026, 3, 15))


def _days(*numbers: int, month: int = 3) -> list[Period]:
    return [Period(date(2026, month, n)) for n in numbers]


def test_today_and_four_days_ahead_are_made_and_waiting_days_too():
    today = date(2026, 3, 9)
    assert partitions.to_create(today=today, span=DAY, existing=[], waiting=[]) == \
        _days(9, 10, 11, 12, 13)
    assert partitions.to_create(
        today=today, span=DAY, existing=_days(9, 10, 11, 12),
        waiting=[date(2026, 3, 1), date(2026, 3, 10)]) == _days(1, 13)


def test_a_week_is_made_for_today_and_the_next_one_once_fewer_than_four_days_remain():
    def weeks(*mondays: int) -> list[Period]:
        return [Period(date(2026, 3, n), WEEK) for n in mondays]

    # Monday to Wednesday: today plus four days stays in the week
    for today in (9, 10, 11):
        assert partitions.to_create(today=date(2026, 3, today), span=WEEK, existing=[],
                                    waiting=[]) == weeks(9)
    # from Thursday on the next week is made too, four days before it begins at least
    for today in (12, 15):
        assert partitions.to_create(today=date(2026, 3, today), span=WEEK, existing=[],
                                    waiting=[]) == weeks(9, 16)
    assert partitions.to_create(today=date(2026, 3, 12), span=WEEK, existing=weeks(9),
                                waiting=[date(2026, 2, 25)]) == [
        Period(date(2026, 2, 23), WEEK), *weeks(16)]
    assert partitions.to_create(today=date(2026, 3, 12), span=WEEK, existing=weeks(9, 16),
                                waiting=[]) == []


def test_a_week_over_day_partitions_made_before_weeks_leaves_its_other_days_to_days():
    # migration 0009 (or beat before weeks) made the days of Wednesday 11 to Sunday 15
    existing = _days(11, 12, 13, 14, 15)
    assert partitions.to_create(today=date(2026, 3, 11), span=WEEK, existing=existing,
                                waiting=[date(2026, 3, 9)]) == _days(9)
    # the next week touches none of them: it is a week
    assert partitions.to_create(today=date(2026, 3, 13), span=WEEK, existing=existing,
                                waiting=[]) == [Period(date(2026, 3, 16), WEEK)]
    # days made on a Thursday reach into the next week: its other days are days too
    assert partitions.to_create(today=date(2026, 3, 14), span=WEEK,
                                existing=_days(12, 13, 14, 15, 16), waiting=[]) == \
        _days(17, 18)


def test_from_day_partitions_every_day_keeps_a_partition_and_weeks_follow_once_they_are_pruned():
    """Beat's hourly run and the daily prune, a day at a time for five weeks after an upgrade
    on a Thursday whose day partitions reached into the next week."""
    existing = set(_days(12, 13, 14, 15, 16))
    today = date(2026, 3, 12)
    for _ in range(35):
        existing.update(partitions.to_create(today=today, span=WEEK, existing=existing,
                                             waiting=[]))
        ordered = sorted(existing)
        assert all(a.end <= b.start for a, b in zip(ordered, ordered[1:], strict=False))
        for day in partitions.days_ahead(today):
            assert any(period.holds(day) for period in existing), (today, day)
        cutoff = partitions.day_start(today) - timedelta(days=7, hours=1)
        existing.difference_update(partitions.droppable(existing, cutoff=cutoff))
        today += timedelta(days=1)
    assert all(period.days == WEEK for period in existing)
    assert len(existing) <= 3  # the week straddling the cutoff, this one and the next


def test_a_load_of_history_gets_every_day_from_its_first():
    today = date(2026, 3, 9)
    assert partitions.to_create(today=today, span=DAY, existing=_days(9, 10, 11, 12, 13),
                                waiting=[], since=date(2026, 3, 6)) == _days(6, 7, 8)
    assert partitions.to_create(today=today, span=WEEK,
                                existing=[Period(date(2026, 3, 9), WEEK)], waiting=[],
                                since=date(2026, 2, 27)) == [Period(date(2026, 2, 23), WEEK),
                                                             Period(date(2026, 3, 2), WEEK)]


def test_a_partition_is_dropped_once_its_upper_bound_is_at_or_before_the_cutoff():
    days = _days(1, 2, 3)
    assert partitions.droppable(days, cutoff=datetime(2026, 3, 3, tzinfo=UTC)) == days[:2]
    # the day holding the cutoff straddles it: it stays for a later run
    assert partitions.droppable(days, cutoff=datetime(2026, 3, 3, 23, 59, tzinfo=UTC)) == \
        days[:2]
    assert partitions.droppable(days, cutoff=datetime(2026, 3, 2, 23, tzinfo=UTC)) == days[:1]
    weeks = [Period(date(2026, 3, 2), WEEK), Period(date(2026, 3, 9), WEEK)]
    # a week straddling the cutoff stays whole: the hot store then holds up to two weeks
    assert partitions.droppable(weeks, cutoff=datetime(2026, 3, 15, 23, tzinfo=UTC)) == \
        weeks[:1]
    assert partitions.droppable(weeks, cutoff=datetime(2026, 3, 8, 23, tzinfo=UTC)) == []
    assert partitions.droppable([*weeks, *_days(1)], cutoff=datetime(2026, 3, 9, tzinfo=UTC)) \
        == [*_days(1), weeks[0]]


# --- The tables -----------------------------------------------------------------------------

def _covering(table: str, days) -> list[Period]:
    """The partitions of `table` holding `days`, oldest first: weeks for the hot store."""
    return sorted({partitions.period_of(day, SPAN[table]) for day in days})


def _name(table: str, day: date) -> str:
    """The name of the partition of `table` holding `day`."""
    return partitions.partition_name(table, partitions.period_of(day, SPAN[table]))


def _attached(table: str) -> dict[str, str]:
    """Each partition's name and bound, as PostgreSQL shows them."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL TimeZone = 'UTC'")
        cursor.execute("SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
                       "JOIN pg_class c ON c.oid = i.inhrelid "
                       "WHERE i.inhparent = %s::regclass", [table])
        return dict(cursor.fetchall())


def _one(sql: str, params=()):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _partition_of(model, row_id) -> str:
    (name,) = _one(f"SELECT tableoid::regclass::text FROM {model._meta.db_table} WHERE id = %s",
                   [row_id])
    return name


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("table", TABLES)
def test_migrate_partitions_each_table_by_its_span_with_a_default(table):
    column = TIME_COLUMN[table]
    assert _one("SELECT pg_get_partkeydef(%s::regclass)", [table]) == (f"RANGE ({column})",)
    attached = _attached(table)
    assert attached.pop(f"{table}_default") == "DEFAULT"
    periods = sorted(partitions.partition_period(table, name) for name in attached)
    assert {period.days for period in periods} == {SPAN[table]}
    # made with the test database, today or (a run across midnight) yesterday, and 4 days ahead
    assert set(_covering(table, partitions.days_ahead(partitions.day_of(timezone.now()),
                                                      ahead=3))) <= set(periods)
    for period in periods:
        last = period.first + timedelta(days=period.days)
        assert attached[partitions.partition_name(table, period)] == (
            f"FOR VALUES FROM ('{period.first} 00:00:00+00') TO ('{last} 00:00:00+00')")
    # the key holds the partition key; the models' indexes keep their names on the parent
    assert _one("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %s",
                [f"{table}_pkey"]) == (f"PRIMARY KEY (id, {column})",)
    assert _indexes_of(table) == MODEL_INDEXES[table] | {f"{table}_pkey"}


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_commit_order_column_and_the_event_id_sequence_survive(app):
    for table in ("tracking_clickarchive", "tracking_event"):
        assert _one("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a "
                    "ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
                    "WHERE d.adrelid = %s::regclass AND a.attname = 'txid'", [table]) == (
            "((pg_current_xact_id())::text)::bigint",)
    assert _one("SELECT pg_get_serial_sequence('tracking_event', 'id')") == (
        "public.tracking_event_id_seq",)
    event = Event.objects.create(app=app, event_name="open", session_id=uuid.uuid4(),
                                 occurred_at=timezone.now())
    assert event.id > 0
    assert _one("SELECT txid IS NOT NULL FROM tracking_event WHERE id = %s", [event.id]) == (True,)


@pytest.mark.postgres
@pytest.mark.django_db
def test_ensure_makes_today_and_four_days_ahead_once():
    later = timezone.now() + timedelta(days=30)
    days = partitions.days_ahead(later.astimezone(UTC).date())
    made = partition_sql.partitions_ensure(now=later)
    expected = [partitions.partition_name(table, period) for table in TABLES
                for period in _covering(table, days)]
    assert made == expected
    assert [name for name in made if name.startswith("tracking_click_")] in (
        [_name("tracking_click", days[0])],
        [_name("tracking_click", days[0]), _name("tracking_click", days[-1])])
    for table in TABLES:
        assert {_name(table, day) for day in days} <= set(_attached(table))
    assert partition_sql.partitions_ensure(now=later) == []
    # each partition's indexes are named after the model's, so plans name the model's index
    for table in TABLES:
        for name in (_name(table, days[0]), f"{table}_default"):
            suffix = name.removeprefix(f"{table}_")
            assert _indexes_of(name) == {f"{index}_{suffix}" for index in _indexes_of(table)}


def _indexes_of(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                       "WHERE i.indrelid = %s::regclass", [table])
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_row_outside_every_partition_waits_in_the_default_until_ensure_moves_it(
        app, client, caplog):
    far = timezone.now() + timedelta(days=12)
    click = ClickArchive.objects.create(app=app, clicked_at=far, media_source="fb")
    assert _partition_of(ClickArchive, click.id) == "tracking_clickarchive_default"

    response = client.get("/readyz")
    assert response.status_code == 200  # nothing is refused for want of a partition
    data = response.json()["data"]
    assert data["status"] == "ready" and data["checks"]["partitions"] == "warning"
    assert data["partitions"]["default_rows"] == {"tracking_click": 0,
                                                  "tracking_clickarchive": 1,
                                                  "tracking_event": 0}

    with caplog.at_level(logging.WARNING, logger="tracking.partition_sql"):
        made = partition_sql.partitions_ensure(now=timezone.now())
    day = _name("tracking_clickarchive", far.astimezone(UTC).date())
    assert day in made
    assert "1 rows of tracking_clickarchive are in its default partition" in caplog.text
    assert _partition_of(ClickArchive, click.id) == day
    assert ClickArchive.objects.get(id=click.id).media_source == "fb"
    data = client.get("/readyz").json()["data"]
    assert data["checks"]["partitions"] == "ok"
    assert set(data["partitions"]["default_rows"].values()) == {0}


@pytest.mark.postgres
@pytest.mark.django_db
def test_events_and_hot_clicks_from_days_beat_missed_move_to_their_own_partition(app):
    three_days_ago = timezone.now() - timedelta(days=3)
    event = Event.objects.create(app=app, event_name="open", session_id=uuid.uuid4(),
                                 occurred_at=three_days_ago, received_at=three_days_ago)
    click = Click.objects.create(app=app, clicked_at=three_days_ago)
    assert _partition_of(Event, event.id) == "tracking_event_default"
    partition_sql.partitions_ensure(now=timezone.now())
    day = three_days_ago.astimezone(UTC).date()
    assert _partition_of(Event, event.id) == _name("tracking_event", day)
    assert _partition_of(Click, click.id) == _name("tracking_click", day)
    assert _partition_of(Click, click.id).startswith("tracking_click_w")
    assert partition_sql.default_rows() == dict.fromkeys(TABLES, 0)


@pytest.mark.postgres
@pytest.mark.django_db
def test_new_rows_land_in_the_partition_of_their_day_or_week(app, api):
    from tests.tracking.helpers import click_through

    click_through(api, app)
    today = partitions.day_of(timezone.now())
    click = Click.objects.get()
    assert _partition_of(Click, click.id) == _name("tracking_click", today)
    assert _partition_of(ClickArchive, click.id) == _name("tracking_clickarchive", today)
    monday = today - timedelta(days=today.weekday())
    assert _name("tracking_click", today) == f"tracking_click_w{monday:%Y%m%d}"


@pytest.mark.django_db
def test_ensure_is_a_scheduled_task_and_sqlite_keeps_plain_tables(client, settings):
    from tracking.tasks import partitions_ensure

    entry = settings.CELERY_BEAT_SCHEDULE["tracking.partitions_ensure"]
    assert entry["task"] == "tracking.partitions_ensure"
    # hourly, at minute 1: each UTC day's first run comes a minute into it
    assert entry["schedule"].minute == {1} and entry["schedule"].hour == set(range(24))
    made = partitions_ensure()
    data = client.get("/readyz").json()["data"]
    if connection.vendor == "postgresql":
        today = partitions.day_of(timezone.now())
        for table in TABLES:
            assert {_name(table, day) for day in partitions.days_ahead(today)} <= \
                set(_attached(table))
        assert partitions_ensure() == []
        assert data["checks"]["partitions"] == "ok"
    else:
        assert made == [] and partition_sql.default_rows() is None
        assert data["checks"]["partitions"] == "not checked" and data["partitions"] is None
        assert "tracking_click_default" not in connection.introspection.table_names()


@pytest.mark.postgres
@pytest.mark.django_db
def test_ensure_gives_the_week_statistics_once_its_first_rows_came(app):
    """The hot paths' generic plans were made while the week was ahead: without statistics
    showing rows, they would scan the whole week."""
    later = timezone.now() + timedelta(days=30)
    partition_sql.partitions_ensure(now=later)
    name = _name("tracking_click", partitions.day_of(later))
    reltuples = "SELECT reltuples FROM pg_class WHERE relname = %s"
    assert _one(reltuples, [name]) == (-1,)  # never analyzed: the planner looks at its size
    partition_sql.partitions_ensure(now=later)
    assert _one(reltuples, [name]) == (-1,)  # nothing to learn from an empty day
    for _ in range(3):
        Click.objects.create(app=app, clicked_at=later)
    partition_sql.partitions_ensure(now=later)
    assert _one(reltuples, [name]) == (3,)


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_admin_estimates_a_partitioned_table_by_its_partitions(app):
    from attribution_site.admin_paging import estimated_rows

    for _ in range(3):
        ClickArchive.objects.create(app=app, clicked_at=timezone.now())
    with connection.cursor() as cursor:  # as autovacuum does: the partitions, never the parent
        for name in _attached("tracking_clickarchive"):
            cursor.execute(f"ANALYZE {name}")
    assert estimated_rows(ClickArchive, using="default") == 3


@pytest.mark.django_db
def test_the_command_makes_the_days_of_a_history_about_to_be_loaded():
    from io import StringIO

    from django.core.management import CommandError, call_command

    today = partitions.day_of(timezone.now())
    since = today - timedelta(days=20)
    if connection.vendor == "postgresql":  # the hot store's weeks: 3 or 4, but those made
        weeks = len(set(_covering("tracking_click", (since + timedelta(days=n)
                                                     for n in range(20))))
                    - set(partition_sql.periods_attached("tracking_click")))
    out = StringIO()
    call_command("partitions_ensure", "--since", since.isoformat(), stdout=out)
    if connection.vendor == "postgresql":
        for table in TABLES:
            assert f"created {_name(table, since)}" in out.getvalue()
            assert _name(table, since) in _attached(table)
        assert f"done: {40 + weeks} partitions created" in out.getvalue()
    else:
        assert "nothing to do" in out.getvalue()
    for bad in ("2026-02-30", "1999-12-31", "2999-01-01"):
        with pytest.raises(CommandError, match="--since"):
            call_command("partitions_ensure", "--since", bad, stdout=StringIO())


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_demo_seeder_loads_its_history_into_day_partitions(app):
    from io import StringIO

    from django.core.management import call_command

    call_command("seed_demo", "--installs", "30", "--events", "200", "--clicks", "60",
                 "--days", "12", "--app-id", str(app.id), "--skip-rollups", stdout=StringIO())
    assert ClickArchive.objects.filter(app=app).count() == 60
    assert Event.objects.filter(app=app).count() == 200
    assert partition_sql.default_rows() == dict.fromkeys(TABLES, 0)


@pytest.fixture
def other_session():
    """A second database session, to hold locks as a long query would."""
    import psycopg

    params = connection.settings_dict
    session = psycopg.connect(dbname=params["NAME"], user=params["USER"],
                              host=params["HOST"], port=params["PORT"] or 5432)
    yield session
    session.close()


@pytest.fixture
def _partitions_dropped_after():
    """For tests that commit DDL: the partitions they make must not outlive them."""
    before = {table: set(_attached(table)) for table in TABLES}
    yield
    with connection.cursor() as cursor:
        for table in TABLES:
            for name in sorted(set(_attached(table)) - before[table]):
                cursor.execute(f"DROP TABLE {name}")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_partitions_dropped_after")
def test_ensure_gives_up_on_a_lock_it_cannot_get_and_the_next_run_makes_the_day(
        other_session, monkeypatch, caplog):
    monkeypatch.setattr(partition_sql, "LOCK_TIMEOUT", "100ms")
    later = timezone.now() + timedelta(days=60)
    other_session.execute("LOCK TABLE tracking_event_default IN ACCESS SHARE MODE")
    with caplog.at_level(logging.WARNING, logger="tracking.partition_sql"):
        made = partition_sql.partitions_ensure(now=later)
    assert not [name for name in made if name.startswith("tracking_event_")]
    days = partitions.days_ahead(partitions.day_of(later))
    # the clicks' weeks and the archive's days were made
    assert made == [partitions.partition_name(table, period) for table in TABLES[:2]
                    for period in _covering(table, days)]
    assert "could not make tracking_event_p" in caplog.text
    other_session.rollback()
    assert partition_sql.partitions_ensure(now=later) == [_name("tracking_event", day)
                                                          for day in days]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_partitions_dropped_after")
def test_prune_leaves_a_week_it_cannot_lock_for_the_next_run(app, other_session, monkeypatch):
    from tracking.services import clicks_prune

    monkeypatch.setattr(partition_sql, "LOCK_TIMEOUT", "100ms")
    Click.objects.create(app=app, clicked_at=timezone.now() - timedelta(days=15))
    partition_sql.partitions_ensure(now=timezone.now())  # its week gets a partition
    other_session.execute("SELECT count(*) FROM tracking_click")  # a long read, still open
    assert clicks_prune(now=timezone.now()) == 0
    assert Click.objects.count() == 1
    other_session.rollback()
    assert clicks_prune(now=timezone.now()) == 1
    assert Click.objects.count() == 0
