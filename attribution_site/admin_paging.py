"""Admin lists over tables that grow without bound (deliveries and their attempts; clicks,
installs and events can use it too): a change list that never counts a whole table. Django's
change list counts twice per page, once for the pager and once for the "N total" beside a
filtered result; `LargeTableAdmin` drops the second, as the tracking admin does, and pages an
unfiltered list of a large PostgreSQL table on the planner's row estimate instead of COUNT(*).
"""

from __future__ import annotations

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property

# Below this many rows an exact count is cheap, and a fresh or small table's estimate is
# often 0 or -1 (never analysed), so it is counted.
ESTIMATE_FROM = 100_000


def estimated_rows(model, *, using: str) -> int:
    """PostgreSQL's estimate of the table's rows (kept by autovacuum and ANALYZE); -1 where
    there is none (another database, or a table never analysed). A partitioned table (clicks
    and events, docs/decisions.md "Time partitions") has no estimate of its own, since
    autovacuum never analyses it: its partitions' estimates are summed."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return -1
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce((SELECT sum(greatest(c.reltuples, 0)) FROM pg_partition_tree("
            "%s::regclass) t JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf), "
            "(SELECT reltuples FROM pg_class WHERE oid = %s::regclass))::bigint",
            [table, table])
        row = cursor.fetchone()
    return -1 if row is None or row[0] is None else int(row[0])


class EstimatedCountPaginator(Paginator):
    """Counts a filtered or searched list exactly (its filter bounds the work), and an
    unfiltered one of a large table by the estimate: the pager's last page numbers may then be
    a little off, which beats a full scan on every page."""

    @cached_property
    def count(self) -> int:
        query = getattr(self.object_list, "query", None)
        unfiltered = (query is not None and not query.where and not query.distinct
                      and query.combinator is None and not query.is_sliced)
        if unfiltered:
            estimate = estimated_rows(self.object_list.model, using=self.object_list.db)
            if estimate >= ESTIMATE_FROM:
                return estimate
        return super().count


class LargeTableAdmin(admin.ModelAdmin):
    """A model admin whose change list counts no whole table (see the module docstring)."""

    show_full_result_count = False
    paginator = EstimatedCountPaginator


class ReadOnlyAdmin(LargeTableAdmin):
    """Rows only the service writes (clicks, installs, events, consent records): listed and
    read, never added, changed or deleted in the admin."""

    list_per_page = 50

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]
