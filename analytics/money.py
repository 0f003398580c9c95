"""Money in one report currency (spec: Analytics endpoints; docs/analytics.md, "Currencies").
Pure.

Rates are stored as units of a currency per US dollar on a day. An amount dated `day` converts
with the most recent rate on or before that day, or, for days before the first known rate, with
the earliest one. An amount in a currency without any rate (or any amount, when the report
currency itself has no rate) is not converted: it is carried apart, per currency, and shown
apart by every endpoint, never dropped and never added to converted money. Nothing is rounded
here; rounding to cents happens once, when a figure is serialized.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

PIVOT = "USD"
ZERO = Decimal(0)


class RateBook:
    def __init__(self, *, target: str, rates: Mapping[str, Iterable[tuple[date, Decimal]]]):
        self.target = target
        self._days: dict[str, list[date]] = {}
        self._values: dict[str, list[Decimal]] = {}
        for currency, series in rates.items():
            if currency == PIVOT:
                continue  # the pivot is 1 by definition; a stored USD row cannot change that
            ordered = sorted(series)
            self._days[currency] = [day for day, _ in ordered]
            self._values[currency] = [value for _, value in ordered]

    def units_per_usd(self, currency: str, day: date) -> Decimal | None:
        if currency == PIVOT:
            return Decimal(1)
        days = self._days.get(currency)
        if not days:
            return None
        index = bisect.bisect_right(days, day) - 1
        return self._values[currency][max(index, 0)]

    def convert(self, amount: Decimal, currency: str, day: date) -> Decimal | None:
        """`amount` in the report currency, or None when a rate is missing."""
        if currency == self.target:
            return amount
        source = self.units_per_usd(currency, day)
        target = self.units_per_usd(self.target, day)
        if source is None or target is None:
            return None
        return amount / source * target


@dataclass
class Money:
    """A sum in the report currency plus, apart, whatever could not be converted."""

    amount: Decimal = ZERO
    unconverted: dict[str, Decimal] = field(default_factory=dict)
    converted_parts: int = 0  # how many amounts made it into `amount`

    @property
    def known(self) -> bool:
        """Whether any amount converted: a cost that is all in unknown currencies is unknown,
        not zero."""
        return self.converted_parts > 0

    def add(self, book: RateBook, amount: Decimal, currency: str, day: date) -> None:
        converted = book.convert(amount, currency, day)
        if converted is None:
            self.unconverted[currency] = self.unconverted.get(currency, ZERO) + amount
        else:
            self.amount += converted
            self.converted_parts += 1

    def merge(self, other: Money) -> None:
        self.amount += other.amount
        self.converted_parts += other.converted_parts
        for currency, amount in other.unconverted.items():
            self.unconverted[currency] = self.unconverted.get(currency, ZERO) + amount

    @property
    def unconverted_list(self) -> list[dict]:
        return [{"currency": currency, "amount": amount}
                for currency, amount in sorted(self.unconverted.items())]
