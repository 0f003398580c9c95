"""Day partitions of the append-only tracking tables: names, bounds and which days to create or
drop (docs/decisions.md, "Day partitions (PostgreSQL)"). Pure: no ORM, no clock.

On PostgreSQL the hot store and the archive of clicks are range-partitioned by `clicked_at`,
events by `received_at`, one partition per UTC day named `<table>_pYYYYMMDD`, plus a DEFAULT
partition `<table>_default` for rows outside every day partition. tracking/partition_sql.py
runs the statements these rules decide.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta

# Beat creates today's partition and this many days after it, hourly: a beat outage of up to
# four days still finds every row a partition of its own (the issue asks for three at least).
AHEAD_DAYS = 4

_DAY_FORMAT = "%Y%m%d"


def partition_name(table: str, day: date) -> str:
    return f"{table}_p{day.strftime(_DAY_FORMAT)}"


def default_name(table: str) -> str:
    return f"{table}_default"


def partition_day(table: str, name: str) -> date | None:
    """The day a partition named by `partition_name` holds; None for any other name (the
    default partition, or one an operator made by hand: never dropped by the rules here)."""
    prefix = f"{table}_p"
    digits = name[len(prefix):]
    if not name.startswith(prefix) or len(digits) != 8 or not digits.isdigit():
        return None
    try:
        return datetime.strptime(digits, _DAY_FORMAT).date()
    except ValueError:
        return None


def day_start(day: date) -> datetime:
    """The partition's lower bound (included); the next day's start is its upper bound."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def day_of(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def days_ahead(today: date, ahead: int = AHEAD_DAYS) -> list[date]:
    """Today and the `ahead` days after it."""
    return [today + timedelta(days=offset) for offset in range(ahead + 1)]


def days_to_create(*, today: date, existing: Iterable[date], waiting: Iterable[date],
                   since: date | None = None, ahead: int = AHEAD_DAYS) -> list[date]:
    """The partitions missing: today and the days ahead, every day whose rows wait in the
    default partition (rows that arrived while beat was down, or a bulk load of history), so
    the default drains instead of growing, and every day from `since` (a load of history
    about to come). Oldest first."""
    wanted = {*days_ahead(today, ahead), *waiting}
    if since is not None:
        wanted.update(since + timedelta(days=n) for n in range((today - since).days))
    return sorted(wanted - set(existing))


def droppable(days: Iterable[date], *, cutoff: datetime) -> list[date]:
    """Days whose whole range is older than `cutoff` (their upper bound at or before it). A
    day that straddles the cutoff stays until a later run: the hot store holds up to a day
    more than the window, and every waterfall query bounds `clicked_at` itself."""
    return sorted(day for day in days if day_start(day + timedelta(days=1)) <= cutoff)
