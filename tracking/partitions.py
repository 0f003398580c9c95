"""Time partitions of the append-only tracking tables: names, bounds and which ranges to create
or drop (docs/decisions.md, "Time partitions (PostgreSQL)"). Pure: no ORM, no clock.

On PostgreSQL the hot store of clicks is range-partitioned by `clicked_at` in ISO weeks (Monday
00:00 UTC to the next Monday), named `<table>_wYYYYMMDD` after the Monday; the archive of
clicks (`clicked_at`) and events (`received_at`) in UTC days, named `<table>_pYYYYMMDD`. Each
table has a DEFAULT partition `<table>_default` for rows outside every other. A table's span
is part of its description (tracking/partition_sql.py, `Partitioned`); the rules here take it
as a number of days. While a week-partitioned table still holds day partitions (made before it
had weeks), a week overlapping one cannot exist: its days that no partition covers get day
partitions of their own until the old days are dropped, after which whole weeks follow.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

# Beat makes the partitions covering today and this many days after it, hourly: a beat outage
# of up to four days still finds every row a partition of its own (the requirement is three at
# least). For weeks this makes the next week from its Thursday before on.
AHEAD_DAYS = 4
DAY, WEEK = 1, 7  # the spans a table is partitioned in, in days

_DAY_FORMAT = "%Y%m%d"
_LETTER = {DAY: "p", WEEK: "w"}  # a week's name can never be read as a day's


@dataclass(frozen=True, order=True)
class Period:
    """The range one partition holds: `days` UTC days from `first` (a Monday for a week)."""

    first: date
    days: int = DAY

    @property
    def start(self) -> datetime:
        """The lower bound (included)."""
        return day_start(self.first)

    @property
    def end(self) -> datetime:
        """The upper bound (excluded): the next period's start."""
        return day_start(self.first + timedelta(days=self.days))

    def holds(self, day: date) -> bool:
        return self.first <= day < self.first + timedelta(days=self.days)

    def overlaps(self, other: Period) -> bool:
        return self.start < other.end and other.start < self.end


def period_of(day: date, span: int) -> Period:
    """The period of `span` days (DAY or WEEK) holding `day`."""
    if span == WEEK:
        return Period(day - timedelta(days=day.weekday()), WEEK)
    return Period(day, DAY)


def partition_name(table: str, period: Period) -> str:
    return f"{table}_{_LETTER[period.days]}{period.first.strftime(_DAY_FORMAT)}"


def default_name(table: str) -> str:
    return f"{table}_default"


def partition_period(table: str, name: str) -> Period | None:
    """The range a partition named by `partition_name` holds; None for any other name (the
    default partition, or one an operator made by hand: never dropped by the rules here)."""
    for span, letter in _LETTER.items():
        prefix = f"{table}_{letter}"
        digits = name[len(prefix):]
        if not name.startswith(prefix) or len(digits) != 8 or not digits.isdigit():
            continue
        try:
            first = datetime.strptime(digits, _DAY_FORMAT).date()
        except ValueError:
            return None
        if span == WEEK and first.weekday() != 0:  # not a name the rules give
            return None
        return Period(first, span)
    return None


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def day_of(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def days_ahead(today: date, ahead: int = AHEAD_DAYS) -> list[date]:
    """Today and the `ahead` days after it."""
    return [today + timedelta(days=offset) for offset in range(ahead + 1)]


def to_create(*, today: date, span: int, existing: Iterable[Period], waiting: Iterable[date],
              since: date | None = None, ahead: int = AHEAD_DAYS) -> list[Period]:
    """The partitions missing so that a partition holds: today and the days ahead, every day
    whose rows wait in the default partition (rows that arrived while beat was down, or a bulk
    load of history), so the default drains instead of growing, and every day from `since` (a
    load of history about to come). Each such day gets the period of `span` holding it; where
    that period would overlap an existing partition (a week over the day partitions made before
    the table had weeks), the day gets a day partition instead. Oldest first."""
    existing = list(existing)
    wanted = {*days_ahead(today, ahead), *waiting}
    if since is not None:
        wanted.update(since + timedelta(days=n) for n in range((today - since).days))
    missing = set()
    for day in wanted:
        if any(period.holds(day) for period in existing):
            continue
        period = period_of(day, span)
        if any(period.overlaps(other) for other in existing):
            period = Period(day, DAY)
        missing.add(period)
    return sorted(missing)


def droppable(periods: Iterable[Period], *, cutoff: datetime) -> list[Period]:
    """Partitions whose whole range is older than `cutoff` (their upper bound at or before it).
    One that straddles the cutoff stays until a later run: the hot store holds up to a week
    more than the window, and every waterfall query bounds `clicked_at` itself."""
    return sorted(period for period in periods if period.end <= cutoff)
