"""The click hot store's partitions become ISO weeks, on PostgreSQL (docs/decisions.md, "Time
partitions (PostgreSQL)"). No row is copied and the model's state does not change.

Each week whose day partitions (migration 0009's, or beat's before this) all hold no row has
them detached and dropped and gets its week partition instead, with the week's rows waiting in
the default partition moved in; on a new database that is every one of them. A week with a day
holding clicks keeps its days (copying them would hold the hot store locked while the clicks
are written again): beat gives that week's uncovered days day partitions of their own until
retention has dropped the old days, about two weeks later, and whole weeks from then on
(tracking/partitions.py, `to_create`). Only DDL on empty tables: the hot store is locked for
milliseconds, once the queries already running on it are done.

The reverse gives each week partition back as its seven days (its rows copied into them), for
the code before this migration, which knows day partitions only. SQLite keeps plain tables.
"""

import re
from datetime import date, datetime, timedelta

from django.db import migrations

TABLE, COLUMN = "tracking_click", "clicked_at"
DAY_NAME = re.compile(rf"^{TABLE}_p(\d{{8}})$")
WEEK_NAME = re.compile(rf"^{TABLE}_w(\d{{8}})$")


def to_weeks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    run = schema_editor.execute
    run(f"LOCK TABLE {TABLE} IN ACCESS EXCLUSIVE MODE")
    weeks = {}
    for name in _attached(schema_editor):
        if match := DAY_NAME.match(name):
            day = datetime.strptime(match[1], "%Y%m%d").date()
            weeks.setdefault(day - timedelta(days=day.weekday()), []).append(name)
    for monday, days in sorted(weeks.items()):
        if any(_holds_rows(schema_editor, name) for name in days):
            continue
        for name in days:
            run(f"ALTER TABLE {TABLE} DETACH PARTITION {name}")
            run(f"DROP TABLE {name}")
        week = f"{TABLE}_w{monday:%Y%m%d}"
        start, end = _bound(monday), _bound(monday + timedelta(days=7))
        run(f"CREATE TABLE {week} (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        run(f"WITH moved AS (DELETE FROM {TABLE}_default WHERE {COLUMN} >= '{start}' AND "
            f"{COLUMN} < '{end}' RETURNING *) INSERT INTO {week} SELECT * FROM moved")
        run(f"ALTER TABLE {TABLE} ATTACH PARTITION {week} FOR VALUES FROM ('{start}') "
            f"TO ('{end}')")
        _name_indexes(schema_editor, week)


def to_days(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    run = schema_editor.execute
    for name in _attached(schema_editor):
        if not (match := WEEK_NAME.match(name)):
            continue
        monday = datetime.strptime(match[1], "%Y%m%d").date()
        run(f"ALTER TABLE {TABLE} DETACH PARTITION {name}")
        for day in (monday + timedelta(days=n) for n in range(7)):
            day_name = f"{TABLE}_p{day:%Y%m%d}"
            run(f"CREATE TABLE {day_name} PARTITION OF {TABLE} FOR VALUES FROM "
                f"('{_bound(day)}') TO ('{_bound(day + timedelta(days=1))}')")
            _name_indexes(schema_editor, day_name)
        run(f"INSERT INTO {TABLE} SELECT * FROM {name}")
        run(f"DROP TABLE {name}")


def _bound(day: date) -> str:
    return f"{day.isoformat()} 00:00:00+00"


def _attached(schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                       "WHERE i.inhparent = %s::regclass ORDER BY c.relname", [TABLE])
        return [name for (name,) in cursor.fetchall()]


def _holds_rows(schema_editor, name):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {name})")
        return cursor.fetchone()[0]


def _name_indexes(schema_editor, partition):
    """The partition's indexes take the parent index's name and the partition's suffix
    (`click_device_idx_w20260309`), as migration 0009 and tracking/partition_sql.py name them."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT c.relname, p.relname FROM pg_index x "
                       "JOIN pg_class c ON c.oid = x.indexrelid "
                       "JOIN pg_inherits i ON i.inhrelid = c.oid "
                       "JOIN pg_class p ON p.oid = i.inhparent "
                       "WHERE x.indrelid = %s::regclass", [partition])
        renames = cursor.fetchall()
    suffix = partition.removeprefix(f"{TABLE}_")
    for index, parent_index in renames:
        schema_editor.execute(f"ALTER INDEX {index} RENAME TO {parent_index}_{suffix}")


class Migration(migrations.Migration):

    dependencies = [
        ("tracking", "0014_install_match_type_google_ads"),
    ]

    operations = [migrations.RunPython(to_weeks, to_days)]
