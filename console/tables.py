"""How the report pages sort and print their figures (docs/console.md, "Report pages": sortable
tables, money in the report currency, ratios without a denominator shown as a dash). Pure: no ORM,
no request.

Sorting is server-side from `?sort=column&dir=asc|desc`, so a header is a plain link that works
without JavaScript; an unknown column or direction falls back to the query's own order. A
missing figure (an unknown cost, a ratio over zero) sorts last whichever the direction, so the
rows that have the figure are the ones the reader sees first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlencode

DASH = "—"
CENTS = Decimal("0.01")
ASC, DESC = "asc", "desc"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    numeric: bool = True
    value: Callable[[object], object] = lambda row: None  # what the column sorts by


@dataclass(frozen=True)
class Header:
    key: str
    label: str
    numeric: bool
    href: str
    aria_sort: str | None  # "ascending"/"descending" on the sorted column only
    arrow: str


@dataclass(frozen=True)
class Sort:
    column: str | None
    direction: str

    @property
    def descending(self) -> bool:
        return self.direction == DESC


def sort_from_query(query: Mapping[str, str], columns: Sequence[Column]) -> Sort:
    keys = {column.key for column in columns}
    column = query.get("sort")
    if column not in keys:
        return Sort(column=None, direction=DESC)
    return Sort(column=column, direction=ASC if query.get("dir") == ASC else DESC)


def sorted_rows(rows: Sequence, columns: Sequence[Column], sort: Sort) -> list:
    """`rows` ordered by the chosen column, missing values last; stable, so ties keep the
    query's order."""
    if sort.column is None:
        return list(rows)
    value = next(c.value for c in columns if c.key == sort.column)
    present = [row for row in rows if value(row) is not None]
    missing = [row for row in rows if value(row) is None]
    return sorted(present, key=lambda row: _sort_key(value(row)),
                  reverse=sort.descending) + missing


def _sort_key(value):
    return value.casefold() if isinstance(value, str) else value


def headers(columns: Sequence[Column], sort: Sort, keep: Mapping[str, str]) -> list[Header]:
    """One header per column whose link sorts by it: descending first for figures, ascending
    first for names, and the other way on a second click. `keep` carries range and model."""
    result = []
    for column in columns:
        current = column.key == sort.column
        if current:
            direction = ASC if sort.descending else DESC
        else:
            direction = DESC if column.numeric else ASC
        href = "?" + urlencode({**keep, "sort": column.key, "dir": direction})
        aria = ("descending" if sort.descending else "ascending") if current else None
        arrow = ("▼" if sort.descending else "▲") if current else ""
        result.append(Header(key=column.key, label=column.label, numeric=column.numeric, href=href,
                             aria_sort=aria, arrow=arrow))
    return result


def amount(value: Decimal | None) -> str:
    """Money to cents, half up as the API rounds it, with thousands separators."""
    if value is None:
        return DASH
    return f"{Decimal(value).quantize(CENTS, rounding=ROUND_HALF_UP):,}"


def money(value: Decimal | None, currency: str) -> str:
    return DASH if value is None else f"{amount(value)} {currency}"


def percent(value: Decimal | None) -> str:
    return DASH if value is None else f"{amount(value)}%"


def count(value: int | Decimal | None) -> str:
    """Whole installs as integers; credited (shared) installs keep two decimals."""
    if value is None:
        return DASH
    if isinstance(value, Decimal) and value != value.to_integral_value():
        return amount(value)
    return f"{int(value):,}"


def unconverted_by_currency(parts: Sequence[tuple[str, Sequence[Mapping]]]
                            ) -> list[tuple[str, list[str]]]:
    """What a page left out for want of a rate, gathered per currency so the page says it once:
    (label, [{"currency", "amount"}, ...]) pairs become [("BRL", ["Revenue 100.00", ...]), ...]."""
    by_currency: dict[str, list[str]] = {}
    for label, items in parts:
        for item in items:
            by_currency.setdefault(item["currency"], []).append(
                f"{label} {amount(item['amount'])}")
    return sorted(by_currency.items())
