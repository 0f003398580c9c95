"""The pure conversion-value rules (conversion/values.py) as tables: which value a window's
events earn, where revenue bands start and end, when a window locks, which rule a postback's
value decodes to, and every way a schema is refused. No database."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from attribution_site.currencies import ISO_4217
from conversion import values
from tests.conversion.samples import SCHEMA

INSTALL = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def parse(raw=SCHEMA) -> values.Schema:
    return values.schema_parse(raw, currencies=ISO_4217)


def events(*pairs) -> list[values.Activity]:
    return [values.Activity(event_name=name,
                            revenue=None if revenue is None else Decimal(str(revenue)),
                            at=INSTALL + timedelta(hours=n))
            for n, (name, revenue) in enumerate(pairs)]


@pytest.mark.parametrize(("window", "activity", "fine", "coarse", "lock"), [
    # window 0: the install alone, the tutorial, purchase bands (min included, max excluded)
    (0, [], 0, "low", False),
    (0, [("app_open", None)], 0, "low", False),
    (0, [("tutorial_complete", None)], 5, "low", False),
    (0, [("purchase", None)], 0, "low", False),  # a purchase without revenue is in no band
    (0, [("purchase", "0.01")], 20, "medium", False),
    (0, [("purchase", "4.99")], 20, "medium", False),
    (0, [("purchase", 5)], 40, "high", False),
    (0, [("purchase", 3), ("purchase", 2)], 40, "high", False),  # revenue is summed
    (0, [("purchase", "19.99")], 40, "high", False),
    (0, [("purchase", 20)], 63, "high", True),  # the window's top value: lock
    (0, [("purchase", 25), ("purchase", -10)], 40, "high", False),  # refunds subtract
    (0, [("subscription", 30)], 0, "low", False),  # another event's revenue is not purchase's
    (0, [("tutorial_complete", None), ("purchase", 1)], 20, "medium", False),  # highest wins
    # window 1: coarse only, no lock asked
    (1, [], None, "low", False),
    (1, [("purchase", "9.99")], None, "medium", False),
    (1, [("purchase", 10)], None, "high", False),
    # window 2: no rule without a condition, so nothing to set until a purchase
    (2, [], None, None, False),
    (2, [("purchase", None)], None, "high", False),
])
def test_a_windows_events_earn_the_most_valuable_matching_rule(window, activity, fine, coarse,
                                                               lock):
    value = values.conversion_value(schema=parse(), window=window, events=events(*activity))
    assert (value.fine, value.coarse, value.lock_window) == (fine, coarse, lock)


def test_no_matching_rule_means_set_nothing():
    value = values.conversion_value(schema=parse(), window=2, events=[])
    assert value == values.Value(window=2, fine=None, coarse=None, lock_window=False,
                                 rule_index=None)


def test_min_count_needs_that_many_events_of_the_name():
    raw = {"windows": [{"rules": [
        {"event_name": "level_up", "fine": 1, "coarse": "low"},
        {"event_name": "level_up", "min_count": 3, "fine": 3, "coarse": "medium"}]},
        {"rules": []}, {"rules": []}]}
    schema = parse(raw)
    two = values.conversion_value(schema=schema, window=0,
                                  events=events(("level_up", None), ("level_up", None)))
    three = values.conversion_value(schema=schema, window=0, events=events(
        ("level_up", None), ("level_up", None), ("level_up", None)))
    assert (two.fine, three.fine) == (1, 3)


@pytest.mark.parametrize(("elapsed", "window"), [
    (timedelta(0), 0),
    (timedelta(hours=47, minutes=59), 0),
    (timedelta(days=2), 1),
    (timedelta(days=7) - timedelta(seconds=1), 1),
    (timedelta(days=7), 2),
    (timedelta(days=35) - timedelta(seconds=1), 2),
    (timedelta(days=35), None),
])
def test_windows_close_two_seven_and_thirty_five_days_after_install(elapsed, window):
    assert values.window_at(install_time=INSTALL, at=INSTALL + elapsed) == window


def test_window_spans_follow_one_another():
    spans = [values.window_span(install_time=INSTALL, window=n) for n in range(3)]
    assert spans[0] == (INSTALL, INSTALL + timedelta(days=2))
    assert spans[1] == (INSTALL + timedelta(days=2), INSTALL + timedelta(days=7))
    assert spans[2] == (INSTALL + timedelta(days=7), INSTALL + timedelta(days=35))


@pytest.mark.parametrize(("window", "fine", "coarse", "rule", "estimate"), [
    (0, 0, None, 0, "0"),  # no revenue range: worth nothing known
    (0, 20, None, 2, "2.505"),  # midpoint of [0.01, 5)
    (0, 40, None, 3, "12.5"),
    (0, 63, None, 4, "20"),  # no top: its floor
    (0, None, "high", 3, "12.5"),  # coarse in window 0 (low crowd anonymity): least valuable
    (0, None, "low", 0, "0"),
    (1, None, "medium", 1, "5.005"),
    (1, None, "high", 2, "10"),
    (2, None, "high", 0, "0"),
])
def test_a_postbacks_value_decodes_to_the_rule_that_gives_it(window, fine, coarse, rule,
                                                            estimate):
    decoded = values.decode(schema=parse(), window=window, fine=fine, coarse=coarse)
    assert decoded == values.Decoded(rule_index=rule, estimated_revenue=Decimal(estimate))


@pytest.mark.parametrize(("window", "fine", "coarse"), [
    (0, 7, None),  # no rule gives fine 7
    (0, None, None),  # a null postback
    (2, None, "low"),  # no rule of window 2 gives low
    (3, 1, None),  # no such window
])
def test_values_no_rule_gives_do_not_decode(window, fine, coarse):
    assert values.decode(schema=parse(), window=window, fine=fine, coarse=coarse) is None


def test_what_the_function_sets_decodes_back_to_the_same_rule():
    schema = parse()
    for window in range(3):
        for activity in ([], [("purchase", 3)], [("purchase", 12)], [("purchase", 50)]):
            value = values.conversion_value(schema=schema, window=window,
                                            events=events(*activity))
            if value.rule_index is None:
                continue
            decoded = values.decode(schema=schema, window=window, fine=value.fine,
                                    coarse=value.coarse)
            if value.fine is not None:
                assert decoded.rule_index == value.rule_index
            else:
                assert schema.windows[window].rules[decoded.rule_index].coarse == value.coarse


def test_the_stored_document_parses_back_to_the_same_schema():
    schema = parse()
    assert parse(values.schema_document(schema)) == schema


def test_the_compact_form_carries_only_what_a_rule_sets():
    compact = values.compact(parse())
    assert compact["currency"] == "USD"
    assert [w["lock"] for w in compact["w"]] == [True, False, False]
    assert compact["w"][0]["rules"][0] == {"coarse": "low", "fine": 0}
    assert compact["w"][0]["rules"][2] == {"coarse": "medium", "fine": 20,
                                           "event_name": "purchase", "min_count": 1,
                                           "min_revenue": "0.01", "max_revenue": "5"}
    assert compact["w"][1]["rules"][2] == {"coarse": "high", "event_name": "purchase",
                                           "min_count": 1, "min_revenue": "10"}


def with_change(path: str, value):
    """SCHEMA with one part replaced: path like `windows.0.rules.1.fine` (value ... deletes)."""
    raw = copy.deepcopy(SCHEMA)
    *parents, last = path.split(".")
    target = raw
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key = int(last) if isinstance(target, list) else last
    if value is ...:
        del target[key]
    else:
        target[key] = value
    return raw


@pytest.mark.parametrize(("raw", "field", "message"), [
    ([], "non_field_errors", "JSON object"),
    (with_change("windows", ...), "windows", "exactly 3"),
    (with_change("windows", SCHEMA["windows"][:2]), "windows", "exactly 3"),
    (with_change("colour", "red"), "colour", "Unknown field"),
    (with_change("currency", "XYZ"), "currency", "ISO 4217"),
    (with_change("windows.1", []), "windows[1]", "object"),
    (with_change("windows.1.rules", {}), "windows[1].rules", "list"),
    (with_change("windows.1.lock_window", "yes"), "windows[1].lock_window", "true or false"),
    (with_change("windows.1.extra", 1), "windows[1].extra", "Unknown field"),
    (with_change("windows.0.rules.1.fine", ...), "windows[0].rules[1].fine", "Required"),
    (with_change("windows.0.rules.1.fine", 64), "windows[0].rules[1].fine", "0 to 63"),
    (with_change("windows.0.rules.1.fine", -1), "windows[0].rules[1].fine", "0 to 63"),
    (with_change("windows.0.rules.1.fine", True), "windows[0].rules[1].fine", "0 to 63"),
    (with_change("windows.0.rules.1.fine", "5"), "windows[0].rules[1].fine", "0 to 63"),
    (with_change("windows.1.rules.0.fine", 3), "windows[1].rules[0].fine", "Only window 0"),
    (with_change("windows.0.rules.1.coarse", "extreme"), "windows[0].rules[1].coarse",
     "low, medium, high"),
    (with_change("windows.0.rules.1.coarse", ...), "windows[0].rules[1].coarse", "Required"),
    (with_change("windows.0.rules.1.fine", 0), "windows[0].rules[1].fine",
     "Rule 0 gives fine value 0"),
    (with_change("windows.0.rules.3.min_revenue", "4.99"), "windows[0].rules[3]",
     "overlaps rule 2"),
    (with_change("windows.0.rules.4.min_revenue", ...), "windows[0].rules[4]", "overlaps"),
    (with_change("windows.1.rules.1", {"coarse": "medium"}), "windows[1].rules[1]",
     "overlaps rule 0"),
    (with_change("windows.0.rules.2.max_revenue", "0.01"), "windows[0].rules[2].max_revenue",
     "greater than min_revenue"),
    (with_change("windows.0.rules.2.min_revenue", -1), "windows[0].rules[2].min_revenue",
     "from 0"),
    (with_change("windows.0.rules.2.min_revenue", "ten"), "windows[0].rules[2].min_revenue",
     "a number"),
    (with_change("windows.0.rules.2.min_revenue", "NaN"), "windows[0].rules[2].min_revenue",
     "a number"),
    (with_change("windows.0.rules.2.min_revenue", "0.0000001"),
     "windows[0].rules[2].min_revenue", "decimal places"),
    (with_change("windows.0.rules.1.event_name", ""), "windows[0].rules[1].event_name",
     "non-empty"),
    (with_change("windows.0.rules.1.event_name", "x" * 129), "windows[0].rules[1].event_name",
     "128"),
    (with_change("windows.0.rules.0.min_count", 2), "windows[0].rules[0].min_count",
     "event_name"),
    (with_change("windows.0.rules.1.min_count", 0), "windows[0].rules[1].min_count", "from 1"),
    (with_change("windows.0.rules.1.colour", "red"), "windows[0].rules[1].colour",
     "Unknown field"),
    (with_change("windows.2.rules", [{"coarse": "low"}] * 65), "windows[2].rules", "At most 64"),
])
def test_a_bad_schema_is_refused_naming_the_field(raw, field, message):
    with pytest.raises(values.SchemaInvalid) as refused:
        parse(raw)
    assert message in " ".join(refused.value.errors[field])


def test_rules_on_different_events_or_counts_may_share_revenue():
    raw = {"windows": [{"rules": [
        {"event_name": "purchase", "min_revenue": 1, "fine": 1, "coarse": "low"},
        {"event_name": "subscribe", "min_revenue": 1, "fine": 2, "coarse": "low"},
        {"event_name": "purchase", "min_count": 2, "min_revenue": 1, "fine": 3,
         "coarse": "medium"}]}, {"rules": []}, {"rules": []}]}
    assert len(parse(raw).windows[0].rules) == 3


def test_currency_defaults_to_usd_and_is_read_in_capitals():
    raw = copy.deepcopy(SCHEMA)
    del raw["currency"]
    assert parse(raw).currency == "USD"
    assert parse(with_change("currency", " eur ")).currency == "EUR"


def test_every_problem_is_named_at_once():
    raw = with_change("windows.0.rules.1.fine", 99)
    raw["windows"][1]["rules"][0]["coarse"] = "top"
    with pytest.raises(values.SchemaInvalid) as refused:
        parse(raw)
    assert set(refused.value.errors) == {"windows[0].rules[1].fine", "windows[1].rules[0].coarse"}
