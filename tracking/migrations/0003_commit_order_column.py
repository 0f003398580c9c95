"""The commit-order column of installs, archived clicks and events (tracking/changes.py).

On PostgreSQL each row gets the id of the transaction that wrote it, by a column default the
models do not declare, so no insert statement has to name it, and a B-tree index finds the
newest rows (a BRIN index was tried: after a bulk load its ranges stay unsummarized until a
vacuum, and every refresh then read the whole table). The column is added without a default
first and given one after, so the existing rows are not rewritten (they keep NULL: seen before
any reader).
SQLite needs nothing: it serialises writers, so its rowids already follow commit order.
"""

from django.db import migrations

TABLES = ("tracking_install", "tracking_clickarchive", "tracking_event")


def add(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {table} ADD COLUMN txid bigint")
        schema_editor.execute(f"ALTER TABLE {table} ALTER COLUMN txid "
                              "SET DEFAULT (pg_current_xact_id()::text::bigint)")
        schema_editor.execute(f"CREATE INDEX {table}_txid_idx ON {table} (txid)")


def remove(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {table} DROP COLUMN txid")


class Migration(migrations.Migration):

    dependencies = [
        ("tracking", "0002_hot_tables_time_ordered_ids_no_database_foreign_keys"),
    ]

    operations = [migrations.RunPython(add, remove)]
