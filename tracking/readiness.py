"""Tracking's readiness check (registered in TrackingConfig.ready(); attribution_site/
readiness.py): rows waiting in a default partition, clicks or events outside every day
partition because beat has not made their partition (docs/decisions.md, "Time partitions").
A "warning": nothing is refused for want of a partition, but the default partition only grows
until beat runs.
"""

from __future__ import annotations

from attribution_site.readiness import Basics
from tracking import partition_sql


def partitions(basics: Basics) -> tuple[str, dict | None]:
    """Rows waiting in a default partition because beat has not made their day's partition.

    Answers ("ok" | "warning" | "not checked", the rows in each default partition)."""
    if not basics["database"]:
        return "not checked", None
    waiting = partition_sql.default_rows()
    if waiting is None:  # SQLite: plain tables
        return "not checked", None
    return ("warning" if any(waiting.values()) else "ok"), {
        "default_rows": waiting, "default_rows_cap": partition_sql.DEFAULT_ROWS_CAP}
