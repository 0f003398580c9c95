"""Rows that must be written together, in one statement where the database allows it.

An install and the rows that follow from it (delivery rows, written by the domain event
subscribers) must commit together. In a transaction that is BEGIN, an INSERT per table and
COMMIT: a round trip each, together a fifth of an install's cost. On PostgreSQL a batch is one
INSERT with the other tables' INSERTs as data-modifying CTEs, atomic on its own: every row is
written or, on any error (a unique violation included), none. Inside a caller's transaction
it runs in a savepoint, so a failure undoes the batch and not the caller's other work. Other
databases (the SQLite first-run default) get `bulk_create` per table inside
`transaction.atomic`.

Side effects wait for the commit: `after_commit` callbacks go to `transaction.on_commit` once
the rows are written, so inside an outer transaction they wait for it, and otherwise run at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction

from attribution_site import prepared


class WriteBatch:
    def __init__(self):
        self._inserts: list[tuple[type[models.Model], list[models.Model], bool]] = []
        self._after_commit: list[Callable[[], None]] = []

    def insert(self, rows: Sequence[models.Model], *, ignore_conflicts: bool = False) -> None:
        """New rows of one model, their primary keys already set. With `ignore_conflicts`, a
        row that breaks a unique constraint is skipped instead of failing the batch."""
        if not rows:
            return
        model = type(rows[0])
        if any(row.pk is None or type(row) is not model for row in rows):
            raise ValueError("a batch insert takes rows of one model with their keys set")
        self._inserts.append((model, list(rows), ignore_conflicts))

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._after_commit.append(callback)

    def execute(self) -> None:
        """Write every row (raises IntegrityError and writes nothing on a conflict not
        ignored), then hand the callbacks to `transaction.on_commit`."""
        if self._inserts:
            if connection.vendor == "postgresql":
                sql = _statement(tuple((model, len(rows), ignore)
                                       for model, rows, ignore in self._inserts))
                values = [value for model, rows, _ in self._inserts
                          for row in rows for value in _values(model, row)]
                if connection.in_atomic_block:  # a savepoint keeps a failure to this batch
                    with transaction.atomic():
                        prepared.execute(sql, values)
                else:
                    prepared.execute(sql, values)
            else:
                with transaction.atomic():
                    for model, rows, ignore in self._inserts:
                        model.objects.bulk_create(rows, ignore_conflicts=ignore)
        for callback in self._after_commit:
            transaction.on_commit(callback)


def _values(model: type[models.Model], row: models.Model) -> list:
    # What Django's INSERT compiler sends: each field's pre_save value, prepared for the database.
    # The wrapper itself, not the `connection` proxy: each attribute read through the proxy is a
    # thread-local lookup, and the fields make dozens of them.
    wrapper = connections[DEFAULT_DB_ALIAS]
    return [field.get_db_prep_save(field.pre_save(row, True), wrapper)
            for field in model._meta.concrete_fields]


@lru_cache(maxsize=256)
def _statement(shape: tuple[tuple[type[models.Model], int, bool], ...]) -> str:
    """One INSERT per (model, row count, ignore conflicts); all but the last as CTEs."""
    inserts = [_insert_sql(model, count, ignore) for model, count, ignore in shape]
    if len(inserts) == 1:
        return inserts[0]
    ctes = ", ".join(f"w{n} AS ({sql})" for n, sql in enumerate(inserts[:-1]))
    return f"WITH {ctes} {inserts[-1]}"


def _insert_sql(model: type[models.Model], count: int, ignore_conflicts: bool) -> str:
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    row = f"({', '.join(['%s'] * len(fields))})"
    sql = (f"INSERT INTO {quote(model._meta.db_table)} "
           f"({', '.join(quote(field.column) for field in fields)}) "
           f"VALUES {', '.join([row] * count)}")
    return sql + " ON CONFLICT DO NOTHING" if ignore_conflicts else sql
