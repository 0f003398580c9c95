"""A link's clicks and installs per UTC day, for the per-link report (links.report; docs/links.md,
"Reports"): exact counts from the raw rows, each through an index that starts with the link:
archived clicks on ClickArchive (link_id, clicked_at), installs on Install (link_id,
installed_at), both partial (WHERE link_id IS NOT NULL, which `link_id = %s` implies, so the
planner may use them). A query reads only the link's rows in the range, never a whole table.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate

from tracking.models import ClickArchive, Install


def counts_per_day(*, link_id: uuid.UUID, since: datetime, until: datetime
                   ) -> dict[str, dict[date, int]]:
    """{"clicks": {day: n}, "installs": {day: n}} over [since, until), days with none left out."""
    return {name: day_counts(rows) for name, rows in count_queries(
        link_id=link_id, since=since, until=until).items()}


def clicks_since(*, link_ids: list[uuid.UUID], since: datetime) -> dict[uuid.UUID, int]:
    """Clicks of each link since `since` (links with none left out), for a page of the links
    list: one query through the same (link_id, clicked_at) index, bounded by the page's links
    and the time."""
    if not link_ids:
        return {}
    return dict(ClickArchive.objects.filter(link_id__in=link_ids, clicked_at__gte=since)
                .values("link_id").annotate(n=Count("*")).values_list("link_id", "n")
                .order_by())


def count_queries(*, link_id: uuid.UUID, since: datetime, until: datetime
                  ) -> dict[str, QuerySet]:
    """The (day, count) queries behind `counts_per_day`, apart so their plans can be checked."""
    return {
        "clicks": per_day(ClickArchive.objects.filter(
            link_id=link_id, clicked_at__gte=since, clicked_at__lt=until), "clicked_at"),
        "installs": per_day(Install.objects.filter(
            link_id=link_id, installed_at__gte=since, installed_at__lt=until), "installed_at"),
    }


def per_day(rows: QuerySet, stamp: str) -> QuerySet:
    """(UTC day of `stamp`, count) rows of a queryset."""
    # COUNT(*) needs no column outside the index, so PostgreSQL may answer from it alone.
    return (rows.annotate(day=TruncDate(stamp)).values("day").annotate(n=Count("*"))
            .values_list("day", "n").order_by())


def day_counts(rows: QuerySet) -> dict[date, int]:
    # SQLite hands back the day as text on some versions; PostgreSQL as a date.
    return {date.fromisoformat(day) if isinstance(day, str) else day: n for day, n in rows}
