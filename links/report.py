"""The per-link report (issue 13, Reports): clicks, installs and deep-link opens of one link
by UTC day, with totals.

Exact counts from the raw rows, each through an index that starts with the link: archived
clicks on ClickArchive (link_id, clicked_at), installs on Install (link_id, installed_at) (both
partial, WHERE link_id IS NOT NULL, which `link_id = %s` implies so the planner may use them),
and opens on LinkOpen (link, opened_at). A query reads only the link's rows in the range, never
a whole table; tests/links/test_link_report.py checks the plans on PostgreSQL.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate

from links.models import LinkOpen
from tracking.models import ClickArchive, Install


@dataclass
class Figures:
    clicks: int = 0
    installs: int = 0
    deep_link_opens: int = 0


@dataclass
class ReportDay(Figures):
    date: date = field(default_factory=date.today)


@dataclass(frozen=True)
class LinkReport:
    link_id: uuid.UUID
    start_date: date
    end_date: date
    totals: Figures
    days: list[ReportDay]
    timezone: str = "UTC"


def link_report(*, link_id: uuid.UUID, start: date, end: date) -> LinkReport:
    """Every day from `start` to `end` (inclusive, UTC), zero where nothing happened."""
    counts = {name: {_as_date(day): n for day, n in rows}
              for name, rows in report_queries(link_id=link_id, start=start, end=end).items()}
    return report_assemble(link_id=link_id, start=start, end=end, counts=counts)


def report_queries(*, link_id: uuid.UUID, start: date, end: date) -> dict[str, QuerySet]:
    """(day, count) rows of each figure over the range, by figure name."""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    return {
        "clicks": _per_day(ClickArchive.objects.filter(
            link_id=link_id, clicked_at__gte=since, clicked_at__lt=until), "clicked_at"),
        "installs": _per_day(Install.objects.filter(
            link_id=link_id, installed_at__gte=since, installed_at__lt=until), "installed_at"),
        "deep_link_opens": _per_day(LinkOpen.objects.filter(
            link_id=link_id, opened_at__gte=since, opened_at__lt=until), "opened_at"),
    }


def report_assemble(*, link_id: uuid.UUID, start: date, end: date,
                    counts: dict[str, dict[date, int]]) -> LinkReport:
    """The dense day series and totals from per-day counts by figure name."""
    days = []
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        days.append(ReportDay(date=day, **{name: per_day.get(day, 0)
                                           for name, per_day in counts.items()}))
    totals = Figures(**{name: sum(per_day.values()) for name, per_day in counts.items()})
    return LinkReport(link_id=link_id, start_date=start, end_date=end, totals=totals, days=days)


def _per_day(rows: QuerySet, stamp: str) -> QuerySet:
    # COUNT(*) needs no column outside the index, so PostgreSQL may answer from it alone.
    return (rows.annotate(day=TruncDate(stamp)).values("day").annotate(n=Count("*"))
            .values_list("day", "n").order_by())


def _as_date(value) -> date:
    # SQLite hands back the day as text on some versions; PostgreSQL as a date.
    return date.fromisoformat(value) if isinstance(value, str) else value
