"""The per-link report (docs/links.md, "Reports"): clicks, installs and deep-link opens of one link
by UTC day, with totals.

Clicks and installs are tracking's, counted by `tracking.reporting.link_rows`; opens are the
links' own, on LinkOpen through its (link, opened_at) index. Each query reads only the link's rows
in the range, never a whole table; tests/links/test_link_report.py checks the plans on
PostgreSQL.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import QuerySet

from links.models import LinkOpen
from tracking.reporting import link_rows


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


# The links list's "clicks" column: a week, so a page of busy links stays one quick index read.
RECENT_CLICKS_DAYS = 7


def recent_clicks(*, link_ids: list[uuid.UUID], now: datetime) -> dict[uuid.UUID, int]:
    """Each link's clicks over the last RECENT_CLICKS_DAYS (links with none left out)."""
    return link_rows.clicks_since(link_ids=link_ids,
                                  since=now - timedelta(days=RECENT_CLICKS_DAYS))


def link_report(*, link_id: uuid.UUID, start: date, end: date) -> LinkReport:
    """Every day from `start` to `end` (inclusive, UTC), zero where nothing happened."""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    counts = {**link_rows.counts_per_day(link_id=link_id, since=since, until=until),
              "deep_link_opens": link_rows.day_counts(
                  opens_query(link_id=link_id, since=since, until=until))}
    return report_assemble(link_id=link_id, start=start, end=end, counts=counts)


def opens_query(*, link_id: uuid.UUID, since: datetime, until: datetime) -> QuerySet:
    """(day, count) rows of the link's deep-link opens in [since, until)."""
    return link_rows.per_day(LinkOpen.objects.filter(
        link_id=link_id, opened_at__gte=since, opened_at__lt=until), "opened_at")


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
