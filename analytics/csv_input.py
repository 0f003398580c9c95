"""Reading operator CSV files (cost rows, currency rates) for the management commands and the
console's cost upload.

UTF-8 (a byte-order mark from a spreadsheet is accepted), a header row naming the columns in any
order, and no column the command does not know: a misspelt header is an error, not a column
silently ignored. Each row comes back with the line it was read from, for error messages.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from contextlib import contextmanager


class CsvProblem(ValueError):
    pass


@contextmanager
def opened(path: str):
    if path == "-":
        yield sys.stdin
        return
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            yield handle
    except OSError as exc:
        raise CsvProblem(f"cannot read {path}: {exc.strerror}") from None


def rows(handle, *, required: set[str], optional: set[str]) -> Iterator[tuple[int, dict]]:
    reader = csv.DictReader(handle)
    header = [name.strip() for name in reader.fieldnames or []]
    if not header:
        raise CsvProblem("the file is empty: expected a header row")
    reader.fieldnames = header
    missing = sorted(required - set(header))
    unknown = sorted(set(header) - required - optional)
    if missing or unknown:
        problems = []
        if missing:
            problems.append(f"missing column(s) {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown column(s) {', '.join(unknown)}")
        raise CsvProblem(f"header: {'; '.join(problems)} (expected "
                         f"{', '.join(sorted(required | optional))})")
    try:
        for row in reader:
            if None in row:
                raise CsvProblem(f"line {reader.line_num}: more cells than header columns")
            yield reader.line_num, {k: (v or "").strip() for k, v in row.items()}
    except (csv.Error, UnicodeDecodeError) as exc:
        raise CsvProblem(f"line {reader.line_num}: {exc}") from None
