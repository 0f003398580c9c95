"""The demo seeder's fast path into tracking's tables, bypassing the tracking services:
PostgreSQL COPY, or bulk_create elsewhere. For `manage.py seed_demo` only."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection, models

from tracking import partition_sql
from tracking.models import Click, ClickArchive, Event, Install

_LOADABLE = {"installs": Install, "clicks": Click, "click_archive": ClickArchive,
             "events": Event}


def bulk_load(*, table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Append rows (tuples in `columns` order) to one of tracking's tables, bypassing the
    tracking services: for the demo seeder only. Columns left out get their field's default.
    PostgreSQL loads through COPY; other databases through bulk_create."""
    model = _LOADABLE[table]
    fields = {f.attname: f for f in model._meta.concrete_fields}
    unknown = [c for c in columns if c not in fields]
    if unknown:
        raise ValueError(f"{table} has no column(s) {', '.join(unknown)}")
    pk = model._meta.pk
    if pk.attname not in columns and not isinstance(pk, models.AutoField):
        raise ValueError(f"{table} rows need their primary key ({pk.attname})")
    missing = [f for name, f in fields.items()
               if name not in columns and not (f is pk and isinstance(pk, models.AutoField))]
    defaults = tuple(None if f.null and not f.has_default() else f.get_default()
                     for f in missing)
    json_at = [i for i, c in enumerate(columns) if isinstance(fields[c], models.JSONField)]
    names = [*columns, *(f.attname for f in missing)]
    if connection.vendor == "postgresql":
        return _copy(model, names, rows, defaults, json_at, missing)
    count = 0
    batch: list = []
    for row in rows:
        batch.append(model(**dict(zip(names, (*row, *defaults), strict=True))))
        if len(batch) == 2_000:
            model.objects.bulk_create(batch)
            count += len(batch)
            batch = []
    model.objects.bulk_create(batch)
    return count + len(batch)


def _copy(model, names, rows, defaults, json_at, missing) -> int:
    default_json = {i for i, f in enumerate(missing) if isinstance(f, models.JSONField)}
    defaults = tuple(json.dumps(v) if i in default_json else v for i, v in enumerate(defaults))
    column_of = {f.attname: f.column for f in model._meta.concrete_fields}
    columns = ", ".join(connection.ops.quote_name(column_of[name]) for name in names)
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
    ) as copy:
        for row in rows:
            if json_at:
                row = list(row)
                for i in json_at:
                    row[i] = json.dumps(row[i])
            copy.write_row((*row, *defaults))
            count += 1
    return count


def days_prepare(*, since: datetime, now: datetime) -> None:
    """Partitions for the history about to be loaded (PostgreSQL; nothing elsewhere), so its
    rows go straight to their days and weeks instead of waiting in the default partitions."""
    partition_sql.partitions_ensure(now=now, since=since)


def analyze_tables() -> None:
    """Refresh the planner's statistics after a bulk load (PostgreSQL only)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in _LOADABLE.values():
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
