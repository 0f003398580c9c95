"""The SKAdNetwork conversion-schema form (docs/console.md, "SKAdNetwork pages"): three windows
of rule rows, turned into the JSON body `POST /api/v1/apps/{id}/conversion-schemas` takes, and
the API's errors (`windows[0].rules[2].fine`) placed back beside the row they are about. Pure:
standard library and `conversion.values`' limits only; the view calls the API's parser and
service with what `schema_body` returns, so the form holds no rule of its own.

A row left entirely empty is no rule: blank rows are how the form offers room for more, so
they are skipped, and `schema_body` says which form row each rule of the body came from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from conversion.values import MAX_RULES_PER_WINDOW, WINDOW_COUNT

RULE_INPUTS = ("event_name", "min_count", "min_revenue", "max_revenue", "fine", "coarse")
INTEGER_INPUTS = frozenset({"min_count", "fine"})
BLANK_ROWS = 2  # offered under a window's rules when the page opens
ADDED_ROWS = 3  # what "Add rows" adds
# Django refuses a form post of more than 1,000 fields (DATA_UPLOAD_MAX_NUMBER_FIELDS): six
# inputs a row leave room for 150 rows in all. A larger schema is saved as JSON.
MAX_FORM_ROWS = 150
WINDOW_PATH = re.compile(r"^windows\[(\d+)\](?:\.(.+))?$")
RULE_PATH = re.compile(r"^rules\[(\d+)\](?:\.(\w+))?$")
RULE_REFERENCE = re.compile(r"\b([Rr])ule (\d+)\b")


@dataclass(frozen=True)
class RuleRow:
    """One row as typed: every input a string, "" when left empty."""

    event_name: str = ""
    min_count: str = ""
    min_revenue: str = ""
    max_revenue: str = ""
    fine: str = ""
    coarse: str = ""

    @property
    def blank(self) -> bool:
        return not any(getattr(self, name).strip() for name in RULE_INPUTS)


@dataclass(frozen=True)
class WindowRows:
    rows: tuple[RuleRow, ...]
    lock_window: bool = False


@dataclass(frozen=True)
class SchemaForm:
    currency: str
    windows: tuple[WindowRows, ...]  # exactly WINDOW_COUNT

    @property
    def row_count(self) -> int:
        return sum(len(window.rows) for window in self.windows)


@dataclass
class PlacedErrors:
    """The API's messages by where the form shows them."""

    general: list[str] = field(default_factory=list)
    currency: list[str] = field(default_factory=list)
    windows: dict[int, list[str]] = field(default_factory=dict)
    rows: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    cells: dict[tuple[int, int, str], list[str]] = field(default_factory=dict)


def input_name(window: int, row: int, name: str) -> str:
    return f"w{window}-r{row}-{name}"


def form_from_post(post: Mapping[str, str]) -> SchemaForm:
    """The form as posted. Each window posts how many rows it showed (`w0-rows`); a count
    that is not a number, or more rows than the form offers, is cut to what it offers."""
    windows = []
    room = MAX_FORM_ROWS
    for window in range(WINDOW_COUNT):
        count = min(_count(post.get(f"w{window}-rows", "")), MAX_RULES_PER_WINDOW, room)
        room -= count
        rows = tuple(RuleRow(**{name: post.get(input_name(window, row, name), "")
                                for name in RULE_INPUTS}) for row in range(count))
        windows.append(WindowRows(rows=rows,
                                  lock_window=post.get(f"w{window}-lock_window") == "on"))
    return SchemaForm(currency=post.get("currency", ""), windows=tuple(windows))


def _count(raw: str) -> int:
    return int(raw) if raw.strip().isdigit() else 0


def form_from_document(document: Mapping) -> SchemaForm:
    """The rows of a stored schema (`conversion.values.schema_document`) or of the example."""
    windows = []
    for window in document["windows"]:
        rows = tuple(RuleRow(**{name: _text(name, rule.get(name)) for name in RULE_INPUTS})
                     for rule in window["rules"])
        windows.append(WindowRows(rows=rows, lock_window=bool(window.get("lock_window"))))
    return SchemaForm(currency=document.get("currency", "USD"), windows=tuple(windows))


def _text(name: str, value: object) -> str:
    # A stored rule says min_count 1, the API's default, even on a rule without an event; the
    # form leaves the default empty rather than show a count of nothing.
    if value is None or (name == "min_count" and value == 1):
        return ""
    return str(value)


def with_blank_rows(form: SchemaForm, count: int = BLANK_ROWS) -> SchemaForm:
    """`count` empty rows under each window's rules, as far as the form has room."""
    for window in range(WINDOW_COUNT):
        form = rows_added(form, window=window, count=count)
    return form


def rows_added(form: SchemaForm, *, window: int, count: int = ADDED_ROWS) -> SchemaForm:
    if not 0 <= window < WINDOW_COUNT:
        return form
    rows = form.windows[window].rows
    count = max(0, min(count, MAX_RULES_PER_WINDOW - len(rows),
                       MAX_FORM_ROWS - form.row_count))
    return _with_rows(form, window, rows + (RuleRow(),) * count)


def row_removed(form: SchemaForm, *, window: int, row: int) -> SchemaForm:
    if not 0 <= window < WINDOW_COUNT or not 0 <= row < len(form.windows[window].rows):
        return form
    rows = form.windows[window].rows
    return _with_rows(form, window, rows[:row] + rows[row + 1:])


def can_add(form: SchemaForm, window: int) -> bool:
    return (len(form.windows[window].rows) < MAX_RULES_PER_WINDOW
            and form.row_count < MAX_FORM_ROWS)


def _with_rows(form: SchemaForm, window: int, rows: tuple[RuleRow, ...]) -> SchemaForm:
    windows = list(form.windows)
    windows[window] = replace(windows[window], rows=rows)
    return replace(form, windows=tuple(windows))


def schema_body(form: SchemaForm) -> tuple[dict, list[list[int]]]:
    """The API's JSON body for the form, and per window the form row of each of its rules.
    An empty input is a field left out (the API's default); a number input that reads as an
    integer is sent as one, anything else as typed, for the API to say what is wrong."""
    windows = []
    positions = []
    for window in form.windows:
        rules = []
        rows = []
        for index, row in enumerate(window.rows):
            if row.blank:
                continue
            rules.append({name: _json_value(name, getattr(row, name)) for name in RULE_INPUTS
                          if getattr(row, name).strip()})
            rows.append(index)
        windows.append({"lock_window": window.lock_window, "rules": rules})
        positions.append(rows)
    return {"currency": form.currency, "windows": windows}, positions


def _json_value(name: str, typed: str) -> object:
    if name in INTEGER_INPUTS and re.fullmatch(r"\s*-?\d+\s*", typed):
        return int(typed)
    return typed


def errors_placed(errors: Mapping[str, list[str]], positions: list[list[int]]) -> PlacedErrors:
    """The API's `{path: [messages]}` by form place: a rule's field beside its input, a rule's
    own problem (an overlapping range) on its row, a window's beside the window, the rest above
    the form."""
    placed = PlacedErrors()
    for path, messages in errors.items():
        if path == "non_field_errors":
            continue  # the page's banner shows them (console/forms.py, FormProblem.general)
        if path == "currency":
            placed.currency.extend(messages)
            continue
        match = WINDOW_PATH.match(path)
        if match is None or int(match[1]) >= len(positions):
            placed.general.extend(messages)
            continue
        window, rest = int(match[1]), match[2]
        rule = RULE_PATH.match(rest or "")
        if rule is None or int(rule[1]) >= len(positions[window]):
            placed.windows.setdefault(window, []).extend(messages)
            continue
        row = positions[window][int(rule[1])]
        messages = [_in_rows(message, positions[window]) for message in messages]
        if rule[2] in RULE_INPUTS:
            placed.cells.setdefault((window, row, rule[2]), []).extend(messages)
        else:  # the whole rule, or a field the form does not have
            placed.rows.setdefault((window, row), []).extend(messages)
    return placed


def _in_rows(message: str, rows: list[int]) -> str:
    """The API names a window's rules by their index in its body ("overlaps rule 1's", "Rule 0
    gives fine value 5 already"); the form shows rows numbered from 1, empty ones included."""
    def row(match: re.Match) -> str:
        index = int(match[2])
        if index >= len(rows):
            return match[0]
        return f"{'Row' if match[1] == 'R' else 'row'} {rows[index] + 1}"
    return RULE_REFERENCE.sub(row, message)
