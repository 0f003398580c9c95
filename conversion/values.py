"""Conversion values (docs/apple.md, "Conversion-value schemas"): a schema's rules, checked, and
the one function that turns a device's events into the SKAdNetwork 4 value to set, and a postback's
value back into the rule it came from. Pure: standard library only, no ORM, no clock (times are
passed in).

The SDK endpoint (`POST /conversion-value`), the compact schema the SDK applies on device and
the SKAdNetwork report all read a schema through this module, so what an app set and what the
report decodes agree.

A schema has three windows, Apple's three SKAdNetwork 4 conversion windows: days 0-2, 3-7 and
8-35 after install (they end 2, 7 and 35 days after the install). Each window has rules; a rule
matches the events of its window when their count (of `event_name`, at least `min_count`) and
their summed revenue (of `event_name`, or of every event when the rule names none) fall in the
rule's half-open range `[min_revenue, max_revenue)`. Of the matching rules the most valuable
wins: the highest fine value in window 0 (Apple sends fine values only in the first window),
the highest coarse value (then the first listed) in windows 1 and 2. No matching rule means
"set nothing": a schema that wants every install counted gives a rule with no condition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation

COARSE_VALUES = ("low", "medium", "high")  # in rising order of value
COARSE_RANK = {name: rank for rank, name in enumerate(COARSE_VALUES)}
FINE_MIN, FINE_MAX = 0, 63
WINDOW_COUNT = 3
# When each window closes, counted from the install (Apple: 0-2 days, 3-7 days, 8-35 days).
WINDOW_ENDS = (timedelta(days=2), timedelta(days=7), timedelta(days=35))
MAX_RULES_PER_WINDOW = 64
MAX_EVENT_NAME_LENGTH = 128  # as /events (tracking/event_batch.py)
MAX_REVENUE = Decimal("1000000000000")
MAX_REVENUE_DECIMALS = 6
MAX_MIN_COUNT = 1_000_000
RULE_FIELDS = frozenset({"event_name", "min_count", "min_revenue", "max_revenue", "fine",
                         "coarse"})
WINDOW_FIELDS = frozenset({"rules", "lock_window"})
SCHEMA_FIELDS = frozenset({"currency", "windows"})
ZERO = Decimal(0)


class SchemaInvalid(Exception):  # noqa: N818 - reads as the outcome, like Django's names
    """The schema's problems, by field path (`windows[0].rules[2].fine`)."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors


@dataclass(frozen=True)
class Rule:
    coarse: str
    fine: int | None = None  # window 0 only
    event_name: str | None = None
    min_count: int = 1  # of `event_name`; meaningless without one
    min_revenue: Decimal | None = None
    max_revenue: Decimal | None = None  # excluded

    @property
    def has_revenue_range(self) -> bool:
        return self.min_revenue is not None or self.max_revenue is not None

    @property
    def estimated_revenue(self) -> Decimal:
        """What one conversion that reached this rule is taken to be worth: the midpoint of
        its revenue range; its floor when the range has no top (nothing more is known); half
        its top when it has no floor (the range starts at zero); zero without a range."""
        low, high = self.min_revenue, self.max_revenue
        if low is not None and high is not None:
            return (low + high) / 2
        if low is not None:
            return low
        if high is not None:
            return high / 2
        return ZERO


@dataclass(frozen=True)
class Window:
    rules: tuple[Rule, ...]
    # Lock once the window's most valuable rule is reached: nothing later could raise the value,
    # and a locked window's postback is sent sooner.
    lock_window: bool = False


@dataclass(frozen=True)
class Schema:
    currency: str
    windows: tuple[Window, ...]  # exactly WINDOW_COUNT


@dataclass(frozen=True)
class Activity:
    """One event a device reports: its name, its revenue in the schema's currency (None when it
    has none or it could not be converted), and when it happened."""

    event_name: str
    revenue: Decimal | None
    at: datetime


@dataclass(frozen=True)
class Value:
    """The value to set now. `fine` and `coarse` are None when no rule matched (set nothing)."""

    window: int
    fine: int | None
    coarse: str | None
    lock_window: bool
    rule_index: int | None


@dataclass(frozen=True)
class Decoded:
    """The rule a postback's value came from, as far as the value tells: a fine value names one
    rule; a coarse value names the rules that give it, and the least valuable is taken."""

    rule_index: int
    estimated_revenue: Decimal


# --- Parsing and checking ---------------------------------------------------------------------

def schema_parse(raw: object, *, currencies: frozenset[str]) -> Schema:
    """The schema `raw` (a JSON object) describes, or SchemaInvalid naming every problem."""
    errors: dict[str, list[str]] = {}
    if not isinstance(raw, Mapping):
        raise SchemaInvalid({"non_field_errors": ["The body must be a JSON object."]})
    for name in sorted(set(raw) - SCHEMA_FIELDS):
        errors[name] = ["Unknown field."]
    currency = raw.get("currency", "USD")
    if not isinstance(currency, str) or currency.strip().upper() not in currencies:
        errors["currency"] = ["Must be an ISO 4217 code such as USD."]
    windows_raw = raw.get("windows")
    windows: list[Window] = []
    if not isinstance(windows_raw, list) or len(windows_raw) != WINDOW_COUNT:
        errors["windows"] = [f"Required: a list of exactly {WINDOW_COUNT} windows (days 0-2, "
                             "3-7 and 8-35 after install), each {rules, lock_window}."]
    else:
        for index, window_raw in enumerate(windows_raw):
            windows.append(_window(index, window_raw, errors))
    if errors:
        raise SchemaInvalid(errors)
    return Schema(currency=currency.strip().upper(), windows=tuple(windows))


def _window(index: int, raw: object, errors: dict) -> Window:
    where = f"windows[{index}]"
    if not isinstance(raw, Mapping):
        errors[where] = ["Must be an object {rules, lock_window}."]
        return Window(rules=())
    for name in sorted(set(raw) - WINDOW_FIELDS):
        errors[f"{where}.{name}"] = ["Unknown field."]
    lock = raw.get("lock_window", False)
    if not isinstance(lock, bool):
        errors[f"{where}.lock_window"] = ["Must be true or false."]
    rules_raw = raw.get("rules", [])
    if not isinstance(rules_raw, list):
        errors[f"{where}.rules"] = ["Must be a list of rules."]
        return Window(rules=())
    if len(rules_raw) > MAX_RULES_PER_WINDOW:
        errors[f"{where}.rules"] = [f"At most {MAX_RULES_PER_WINDOW} rules a window."]
        return Window(rules=())
    rules = [_rule(index, f"{where}.rules[{n}]", item, errors)
             for n, item in enumerate(rules_raw)]
    parsed = [(n, rule) for n, rule in enumerate(rules) if rule is not None]
    _check_together(where, parsed, errors)
    return Window(rules=tuple(rule for _, rule in parsed), lock_window=lock is True)


def _rule(window: int, where: str, raw: object, errors: dict) -> Rule | None:
    if not isinstance(raw, Mapping):
        errors[where] = ["Must be an object."]
        return None
    mine: dict[str, list[str]] = {}
    for name in sorted(set(raw) - RULE_FIELDS):
        mine[name] = ["Unknown field."]
    coarse = raw.get("coarse")
    if coarse not in COARSE_VALUES:
        mine["coarse"] = [f"Required: one of {', '.join(COARSE_VALUES)}."]
    fine = raw.get("fine")
    if window == 0:
        if isinstance(fine, bool) or not isinstance(fine, int) or not (
                FINE_MIN <= fine <= FINE_MAX):
            mine["fine"] = [f"Required in window 0: an integer from {FINE_MIN} to {FINE_MAX}."]
    elif fine is not None:
        mine["fine"] = ["Only window 0 has fine values: Apple sends them in the first "
                        "postback only."]
    event_name = raw.get("event_name")
    if event_name is not None:
        if not isinstance(event_name, str) or not event_name.strip():
            mine["event_name"] = ["When given: a non-empty string."]
        elif len(event_name) > MAX_EVENT_NAME_LENGTH:
            mine["event_name"] = [f"At most {MAX_EVENT_NAME_LENGTH} characters."]
        elif "\x00" in event_name:
            mine["event_name"] = ["Must not contain NUL characters."]
    min_count = raw.get("min_count", 1)
    if isinstance(min_count, bool) or not isinstance(min_count, int) or not (
            1 <= min_count <= MAX_MIN_COUNT):
        mine["min_count"] = [f"When given: an integer from 1 to {MAX_MIN_COUNT}."]
    elif min_count != 1 and event_name is None:
        mine["min_count"] = ["Counts events of event_name: give one."]
    low = _revenue(raw, "min_revenue", mine)
    high = _revenue(raw, "max_revenue", mine)
    if low is not None and high is not None and high <= low:
        mine["max_revenue"] = ["Must be greater than min_revenue (the range is "
                               "[min_revenue, max_revenue))."]
    errors.update({f"{where}.{name}": messages for name, messages in mine.items()})
    if mine:
        return None
    return Rule(coarse=coarse, fine=fine if window == 0 else None,
                event_name=event_name.strip() if event_name is not None else None,
                min_count=min_count, min_revenue=low, max_revenue=high)


def _revenue(raw: Mapping, name: str, errors: dict) -> Decimal | None:
    value = raw.get(name)
    if value is None:
        return None
    amount = _decimal(value)
    if amount is None:
        errors[name] = ["When given: a number (or a decimal string)."]
    elif not ZERO <= amount <= MAX_REVENUE:
        errors[name] = [f"Must be from 0 to {MAX_REVENUE}."]
    elif -amount.as_tuple().exponent > MAX_REVENUE_DECIMALS:
        errors[name] = [f"At most {MAX_REVENUE_DECIMALS} decimal places."]
    else:
        return amount
    return None


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return amount if amount.is_finite() else None


def _check_together(where: str, rules: list[tuple[int, Rule]], errors: dict) -> None:
    """A fine value names one rule (else a postback could not be decoded), and rules on the same
    events must not share revenue: an amount in two ranges leaves its estimate ambiguous."""
    fine_owner: dict[int, int] = {}
    for n, rule in rules:
        if rule.fine is not None:
            if rule.fine in fine_owner:
                errors[f"{where}.rules[{n}].fine"] = [
                    f"Rule {fine_owner[rule.fine]} gives fine value {rule.fine} already."]
            else:
                fine_owner[rule.fine] = n
    for i, (n, rule) in enumerate(rules):
        for m, other in rules[:i]:
            if (rule.event_name, rule.min_count) != (other.event_name, other.min_count):
                continue
            if _overlap(rule, other):
                errors.setdefault(f"{where}.rules[{n}]", []).append(
                    f"Its revenue range overlaps rule {m}'s on the same events "
                    "(ranges are [min_revenue, max_revenue)).")
                break


def _overlap(a: Rule, b: Rule) -> bool:
    def starts_before_end(x: Rule, y: Rule) -> bool:
        return x.min_revenue is None or y.max_revenue is None or x.min_revenue < y.max_revenue
    return starts_before_end(a, b) and starts_before_end(b, a)


# --- Stored and compact forms -----------------------------------------------------------------

def schema_document(schema: Schema) -> dict:
    """The schema as stored and as the dashboard reads it: every field, amounts as strings."""
    return {"currency": schema.currency, "windows": [
        {"lock_window": window.lock_window, "rules": [_rule_document(rule, full=True)
                                                      for rule in window.rules]}
        for window in schema.windows]}


def compact(schema: Schema) -> dict:
    """The form the SDK applies on device: only the fields a rule sets, windows as `w`."""
    return {"currency": schema.currency, "w": [
        {"lock": window.lock_window, "rules": [_rule_document(rule, full=False)
                                               for rule in window.rules]}
        for window in schema.windows]}


def _rule_document(rule: Rule, *, full: bool) -> dict:
    document: dict = {"coarse": rule.coarse}
    if rule.fine is not None or full:
        document["fine"] = rule.fine
    if rule.event_name is not None or full:
        document["event_name"] = rule.event_name
    if rule.event_name is not None or full:
        document["min_count"] = rule.min_count
    for name in ("min_revenue", "max_revenue"):
        amount = getattr(rule, name)
        if amount is not None or full:
            document[name] = None if amount is None else str(amount)
    return document


# --- The value function -----------------------------------------------------------------------

def window_at(*, install_time: datetime, at: datetime) -> int | None:
    """The window open at `at` for an install at `install_time`; None once all have closed."""
    elapsed = at - install_time
    for index, end in enumerate(WINDOW_ENDS):
        if elapsed < end:
            return index
    return None


def window_span(*, install_time: datetime, window: int) -> tuple[datetime, datetime]:
    """When `window` opens and closes (closed before the end) for an install."""
    start = install_time + (WINDOW_ENDS[window - 1] if window else timedelta(0))
    return start, install_time + WINDOW_ENDS[window]


def conversion_value(*, schema: Schema, window: int, events: Iterable[Activity]) -> Value:
    """The value the window's events earn under `schema`. The caller passes the window's events
    (`window_span` bounds them when the install time is known)."""
    counts: dict[str, int] = {}
    revenue_by_name: dict[str, Decimal] = {}
    total = ZERO
    for event in events:
        counts[event.event_name] = counts.get(event.event_name, 0) + 1
        if event.revenue is not None:
            revenue_by_name[event.event_name] = (revenue_by_name.get(event.event_name, ZERO)
                                                 + event.revenue)
            total += event.revenue
    rules = schema.windows[window].rules
    best: int | None = None
    for index, rule in enumerate(rules):
        if rule.event_name is not None:
            if counts.get(rule.event_name, 0) < rule.min_count:
                continue
            revenue = revenue_by_name.get(rule.event_name, ZERO)
        else:
            revenue = total
        if rule.min_revenue is not None and revenue < rule.min_revenue:
            continue
        if rule.max_revenue is not None and revenue >= rule.max_revenue:
            continue
        if best is None or _rank(window, rule) > _rank(window, rules[best]):
            best = index
    if best is None:
        return Value(window=window, fine=None, coarse=None, lock_window=False, rule_index=None)
    winner = rules[best]
    top = max(_rank(window, rule) for rule in rules)
    return Value(window=window, fine=winner.fine, coarse=winner.coarse,
                 lock_window=schema.windows[window].lock_window
                 and _rank(window, winner) == top,
                 rule_index=best)


def _rank(window: int, rule: Rule) -> tuple[int, int]:
    if window == 0:
        return (rule.fine if rule.fine is not None else -1, COARSE_RANK[rule.coarse])
    return (COARSE_RANK[rule.coarse], 0)


def decode(*, schema: Schema, window: int, fine: int | None, coarse: str | None
           ) -> Decoded | None:
    """The rule a postback's value came from and what it is taken to be worth; None when the
    value is null or no rule of the window gives it (the app set a value by other means, or
    under a schema that was replaced before the postback arrived)."""
    if not 0 <= window < WINDOW_COUNT:
        return None
    rules = schema.windows[window].rules
    if fine is not None:
        for index, rule in enumerate(rules):
            if rule.fine == fine:
                return Decoded(rule_index=index, estimated_revenue=rule.estimated_revenue)
        return None
    if coarse is None:
        return None
    giving = [(rule.estimated_revenue, index) for index, rule in enumerate(rules)
              if rule.coarse == coarse]
    if not giving:
        return None
    estimate, index = min(giving)
    return Decoded(rule_index=index, estimated_revenue=estimate)
