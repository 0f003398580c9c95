"""Cost CSV files (docs/analytics.md, "Cost import replaces per key; refunds of cost are not
accepted"; docs/console.md, "Cost upload: preview, then all or nothing"), read the same way by
`manage.py import_costs` and the console's cost upload: the columns, every row checked by the API's
own `CostRowInput`, and rows repeating an earlier (date, media_source, campaign_id) found. Nothing
is written here: the caller imports `CostFile.rows` with `services.costs_import` only when
`CostFile.valid`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from analytics import csv_input, services
from analytics.serializers import CostRowInput

REQUIRED = {"date", "media_source", "cost", "currency"}
OPTIONAL = {"campaign_id"}
COLUMNS = ("date", "media_source", "campaign_id", "cost", "currency")
NO_ROWS = "the file has a header but no rows"


@dataclass
class CostLine:
    """One data row of the file: the cells as read, and either the row or what is wrong."""

    line: int
    values: dict[str, str]
    row: services.CostRow | None = None
    errors: dict[str, list[str]] = field(default_factory=dict)
    repeats_line: int | None = None  # the line whose date, media_source and campaign_id it repeats

    @property
    def valid(self) -> bool:
        return self.row is not None and self.repeats_line is None

    @property
    def repeat_message(self) -> str | None:
        if self.repeats_line is None:
            return None
        return f"repeats the date, media_source and campaign_id of line {self.repeats_line}"


@dataclass
class CostFile:
    lines: list[CostLine]

    @property
    def valid(self) -> bool:
        return all(line.valid for line in self.lines)

    @property
    def rows(self) -> list[services.CostRow]:
        return [line.row for line in self.lines if line.row is not None]

    @property
    def invalid_lines(self) -> list[CostLine]:
        return [line for line in self.lines if not line.valid]

    def messages(self) -> list[str]:
        """Every problem as `line N: field: message`, the field errors first, then repeats."""
        return [*(f"line {line.line}: {name}: {message}" for line in self.lines
                  for name, messages in line.errors.items() for message in messages),
                *(f"line {line.line}: {line.repeat_message}" for line in self.lines
                  if line.repeats_line is not None)]


def cost_file_read(handle: Iterable[str], *, max_rows: int | None = None) -> CostFile:
    """Every row of a cost CSV checked, or `csv_input.CsvProblem` for a file that cannot be
    read as one (bad header, a row with more cells than columns, no rows, more than
    `max_rows` rows). Reading stops at the first row past `max_rows`, so a huge file is not
    checked row by row only to be refused."""
    lines: list[CostLine] = []
    for line, values in csv_input.rows(handle, required=REQUIRED, optional=OPTIONAL):
        if max_rows is not None and len(lines) >= max_rows:
            raise csv_input.CsvProblem(
                f"more than {max_rows:,} rows: split the file and import each part")
        checked = CostRowInput(data=values)
        entry = CostLine(line=line, values=values)
        if checked.is_valid():
            data = checked.validated_data
            entry.row = services.CostRow(day=data["date"], media_source=data["media_source"],
                                         campaign_id=data["campaign_id"], cost=data["cost"],
                                         currency=data["currency"])
        else:
            entry.errors = {name: [str(message) for message in messages]
                            for name, messages in checked.errors.items()}
        lines.append(entry)
    if not lines:
        raise csv_input.CsvProblem(NO_ROWS)
    parsed = [entry for entry in lines if entry.row is not None]
    for index, first in services.duplicate_keys([entry.row for entry in parsed]):
        parsed[index].repeats_line = parsed[first].line
    return CostFile(lines=lines)
