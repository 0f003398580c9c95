"""Currency rate CSV files (docs/analytics.md, "Currencies"), read the same way by
`manage.py load_currency_rates` and the console's rates page: columns date (YYYY-MM-DD),
currency (ISO 4217) and units_per_usd (how many units of the currency one US dollar bought that
day). Every row is checked, and a row repeating an earlier (currency, date) is found. Nothing is
written here: the caller loads `RateFile.rows` with `services.currency_rates_load` only when
`RateFile.valid`. The console's single-rate form checks its fields with `rate_row` too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from analytics import csv_input, services
from attribution_site.currencies import currency_code

REQUIRED = {"date", "currency", "units_per_usd"}
COLUMNS = ("date", "currency", "units_per_usd")
NO_ROWS = "the file has a header but no rows"
MAX_DECIMALS = 10
TOO_LARGE = Decimal("1e14")  # the column holds 24 digits, 10 of them decimals


def rate_row(values: dict[str, str]) -> tuple[services.RateRow | None, dict[str, str]]:
    """The rate of one row (or form), or what is wrong with each field."""
    errors: dict[str, str] = {}
    day = None
    try:
        if len(values["date"]) != 10:
            raise ValueError(values["date"])
        day = date.fromisoformat(values["date"])
    except ValueError:
        errors["date"] = "must be a date as YYYY-MM-DD"
    currency = currency_code(values["currency"])
    if currency is None:
        errors["currency"] = "must be an ISO 4217 code such as EUR"
    elif currency == "USD":
        errors["currency"] = "USD is the pivot (always 1) and takes no rate"
    try:
        rate = Decimal(values["units_per_usd"])
        if not rate.is_finite() or rate <= 0 or rate.as_tuple().exponent < -MAX_DECIMALS \
                or rate >= TOO_LARGE:
            raise InvalidOperation
    except InvalidOperation:
        errors["units_per_usd"] = "must be a positive number with at most 10 decimals"
    if errors:
        return None, errors
    return services.RateRow(day=day, currency=currency, units_per_usd=rate), {}


@dataclass
class RateLine:
    """One data row of the file: the cells as read, and either the rate or what is wrong."""

    line: int
    values: dict[str, str]
    row: services.RateRow | None = None
    errors: dict[str, str] = field(default_factory=dict)
    repeats_line: int | None = None  # the earlier line with the same currency and date

    @property
    def valid(self) -> bool:
        return self.row is not None and self.repeats_line is None

    def messages(self) -> list[str]:
        if self.repeats_line is not None:
            return [f"repeats {self.row.currency} on {self.row.day} (line {self.repeats_line})"]
        return [f"{name}: {message}" for name, message in self.errors.items()]


@dataclass
class RateFile:
    lines: list[RateLine]

    @property
    def valid(self) -> bool:
        return all(line.valid for line in self.lines)

    @property
    def rows(self) -> list[services.RateRow]:
        return [line.row for line in self.lines if line.valid]

    @property
    def invalid_lines(self) -> list[RateLine]:
        return [line for line in self.lines if not line.valid]

    def messages(self) -> list[str]:
        """Every problem as `line N: field: message`, in the order of the file."""
        return [f"line {line.line}: {message}" for line in self.lines
                for message in line.messages()]


def rate_file_read(handle: Iterable[str], *, max_rows: int | None = None) -> RateFile:
    """Every row of a rates CSV checked, or `csv_input.CsvProblem` for a file that cannot be
    read as one (bad header, a row with more cells than columns, no rows, more than
    `max_rows` rows)."""
    lines: list[RateLine] = []
    first_line: dict[tuple[str, date], int] = {}
    for line, values in csv_input.rows(handle, required=REQUIRED, optional=set()):
        if max_rows is not None and len(lines) >= max_rows:
            raise csv_input.CsvProblem(
                f"more than {max_rows:,} rows: split the file and load each part")
        row, errors = rate_row(values)
        entry = RateLine(line=line, values=values, row=row, errors=errors)
        if row is not None:
            key = (row.currency, row.day)
            if key in first_line:
                entry.repeats_line = first_line[key]
            else:
                first_line[key] = line
        lines.append(entry)
    if not lines:
        raise csv_input.CsvProblem(NO_ROWS)
    return RateFile(lines=lines)
