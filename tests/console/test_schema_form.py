"""console/schema_form.py, the conversion-schema form's rows and the API's body (pure: no
database): empty rows are no rules, numbers go as numbers, stored schemas come back as rows, and
every API error path finds the row it was typed in."""

from __future__ import annotations

from attribution_site.currencies import ISO_4217
from console import schema_form
from console.schema_form import RuleRow, SchemaForm, WindowRows
from conversion import values
from tests.conversion.samples import SCHEMA


def form(*windows: tuple[RuleRow, ...], currency: str = "USD") -> SchemaForm:
    padded = list(windows) + [()] * (3 - len(windows))
    return SchemaForm(currency=currency, windows=tuple(WindowRows(rows=rows) for rows in padded))


def test_empty_rows_are_left_out_and_each_rule_remembers_its_row():
    body, positions = schema_form.schema_body(form(
        (RuleRow(), RuleRow(event_name="purchase", fine="3", coarse="low"), RuleRow(" ", "")),
        (RuleRow(coarse="high"),)))
    assert body == {"currency": "USD", "windows": [
        {"lock_window": False, "rules": [{"event_name": "purchase", "fine": 3,
                                          "coarse": "low"}]},
        {"lock_window": False, "rules": [{"coarse": "high"}]},
        {"lock_window": False, "rules": []}]}
    assert positions == [[1], [0], []]


def test_integers_go_as_integers_and_anything_else_as_typed_for_the_api_to_refuse():
    body, _ = schema_form.schema_body(form((
        RuleRow(event_name="level", min_count=" 3 ", min_revenue="0.5", fine="6.5",
                coarse="low"),)))
    assert body["windows"][0]["rules"] == [{"event_name": "level", "min_count": 3,
                                            "min_revenue": "0.5", "fine": "6.5",
                                            "coarse": "low"}]


def test_a_stored_schema_comes_back_as_rows_that_make_the_same_schema():
    stored = values.schema_document(values.schema_parse(SCHEMA, currencies=ISO_4217))
    rows = schema_form.form_from_document(stored)
    assert rows.windows[0].rows[2] == RuleRow(event_name="purchase", min_revenue="0.01",
                                              max_revenue="5", fine="20", coarse="medium")
    assert rows.windows[0].lock_window and not rows.windows[1].lock_window
    body, _ = schema_form.schema_body(schema_form.with_blank_rows(rows))
    again = values.schema_document(values.schema_parse(body, currencies=ISO_4217))
    assert again == stored


def test_errors_are_placed_on_the_rows_they_came_from():
    positions = [[1, 3], [0], []]
    placed = schema_form.errors_placed({
        "currency": ["Bad."], "windows[0].rules[1].fine": ["Fine."],
        "windows[0].rules[1]": ["Overlaps."], "windows[1].rules[0].surprise": ["Unknown."],
        "windows[2].rules": ["Too many."], "windows": ["Three."],
        "non_field_errors": ["Shown by the banner."]}, positions)
    assert placed.currency == ["Bad."]
    assert placed.cells == {(0, 3, "fine"): ["Fine."]}
    assert placed.rows == {(0, 3): ["Overlaps."], (1, 0): ["Unknown."]}
    assert placed.windows == {2: ["Too many."]}
    assert placed.general == ["Three."]


def test_posted_rows_are_read_and_counts_beyond_the_forms_room_are_cut():
    post = {"currency": "EUR", "w0-rows": "2", "w0-lock_window": "on",
            "w0-r1-event_name": "purchase", "w0-r1-coarse": "high", "w1-rows": "many",
            "w2-rows": "9999"}
    posted = schema_form.form_from_post(post)
    assert posted.currency == "EUR" and posted.windows[0].lock_window
    assert posted.windows[0].rows == (RuleRow(), RuleRow(event_name="purchase", coarse="high"))
    assert len(posted.windows[1].rows) == 0
    assert len(posted.windows[2].rows) == values.MAX_RULES_PER_WINDOW


def test_rows_are_added_up_to_the_limits_and_removed_by_position():
    start = form((RuleRow(coarse="low"), RuleRow(coarse="high")))
    added = schema_form.rows_added(start, window=0)
    assert len(added.windows[0].rows) == 2 + schema_form.ADDED_ROWS
    assert schema_form.row_removed(start, window=0, row=0).windows[0].rows == (
        RuleRow(coarse="high"),)
    assert schema_form.row_removed(start, window=0, row=7) == start
    full = form((RuleRow(),) * values.MAX_RULES_PER_WINDOW, (RuleRow(),) * 64,
                (RuleRow(),) * 20)
    assert not schema_form.can_add(full, 0)
    assert len(schema_form.rows_added(full, window=2, count=10).windows[2].rows) == 22
    assert not schema_form.can_add(schema_form.rows_added(full, window=2, count=10), 2)


def test_the_apis_rule_numbers_become_the_forms_row_numbers():
    positions = [[1, 3, 4], [], []]
    placed = schema_form.errors_placed({
        "windows[0].rules[2].fine": ["Rule 0 gives fine value 5 already."],
        "windows[0].rules[1]": ["Its revenue range overlaps rule 0's on the same events."]},
        positions)
    assert placed.cells == {(0, 4, "fine"): ["Row 2 gives fine value 5 already."]}
    assert placed.rows == {(0, 3): ["Its revenue range overlaps row 2's on the same events."]}
