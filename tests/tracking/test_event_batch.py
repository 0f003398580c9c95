"""Event batch validation: pure, no database."""

from decimal import Decimal

from tracking.event_batch import MAX_PROPERTIES_BYTES, check_batch

NOW_MS = 1_795_000_000_000
SESSION = "6f1c4f5e-2d4b-4b7a-9a8f-0c1e2d3f4a5b"


def event(**overrides):
    values = {"event_name": "level_up", "properties": {"level": 3}, "timestamp": NOW_MS,
              "session_id": SESSION}
    values.update(overrides)
    return values


def test_good_events_pass_and_bad_ones_are_listed_by_index():
    result = check_batch([event(), event(event_name=""), "nope", event(timestamp="x")],
                         now_ms=NOW_MS)
    assert [e.index for e in result.events] == [0]
    assert [r["index"] for r in result.rejected] == [1, 2, 3]
    assert "event_name" in result.rejected[0]["errors"]
    assert "timestamp" in result.rejected[2]["errors"]


def test_each_required_field_is_checked():
    result = check_batch([{}], now_ms=NOW_MS)
    assert set(result.rejected[0]["errors"]) == {"event_name", "properties", "timestamp",
                                                 "session_id"}


def test_timestamps_far_in_the_future_or_past_are_rejected():
    result = check_batch([event(timestamp=NOW_MS + 3 * 86_400_000), event(timestamp=5),
                          event(timestamp=True)], now_ms=NOW_MS)
    assert len(result.rejected) == 3


def test_oversized_properties_are_rejected():
    result = check_batch([event(properties={"blob": "x" * MAX_PROPERTIES_BYTES})],
                         now_ms=NOW_MS)
    assert "properties" in result.rejected[0]["errors"]


def test_amount_and_iso_currency_make_a_revenue_event():
    result = check_batch([event(properties={"amount": 9.99, "currency": "eur"}),
                          event(properties={"amount": "-4.50", "currency": "USD"})],
                         now_ms=NOW_MS)
    assert [(e.revenue_amount, e.revenue_currency) for e in result.events] == [
        (Decimal("9.990000"), "EUR"), (Decimal("-4.500000"), "USD")]


def test_bad_revenue_is_stored_as_a_plain_event_with_a_warning():
    result = check_batch([event(properties={"amount": "lots", "currency": "USD"}),
                          event(properties={"amount": 5, "currency": "XXQ"}),
                          event(properties={"amount": True, "currency": "USD"})],
                         now_ms=NOW_MS)
    assert len(result.events) == 3
    assert all(e.revenue_amount is None for e in result.events)
    assert [w["index"] for w in result.warnings] == [0, 1, 2]


def test_nul_characters_reject_only_their_event():
    result = check_batch([event(properties={"note": "a\x00b"}), event(event_name="x\x00"),
                          event(event_id="id\x00"), event()], now_ms=NOW_MS)
    assert [r["index"] for r in result.rejected] == [0, 1, 2]
    assert len(result.events) == 1


def test_lone_surrogates_reject_only_their_event_naming_the_character():
    """JSON's \\ud800 escapes decode to characters UTF-8 cannot encode: the event is refused
    with the field named, as a NUL is, instead of failing the batch's write."""
    result = check_batch([event(properties={"note": "a\ud800"}), event(event_name="x\udfff"),
                          event(event_id="id\ud83d"), event(properties={"k\udc00": 1}),
                          event()], now_ms=NOW_MS)
    assert [(r["index"], r["errors"]) for r in result.rejected] == [
        (0, {"properties": ["Surrogate characters are not allowed: U+D800."]}),
        (1, {"event_name": ["Surrogate characters are not allowed: U+DFFF."]}),
        (2, {"event_id": ["Surrogate characters are not allowed: U+D83D."]}),
        (3, {"properties": ["Surrogate characters are not allowed: U+DC00."]})]
    assert len(result.events) == 1
