"""Converting money into the report currency. Pure: no database."""

from datetime import date
from decimal import Decimal

from analytics.money import Money, RateBook

RATES = {"EUR": [(date(2025, 3, 1), Decimal("0.8")), (date(2025, 3, 10), Decimal("0.9"))],
         "GBP": [(date(2025, 3, 5), Decimal("0.5"))],
         "USD": [(date(2025, 3, 1), Decimal("7"))]}


def test_the_most_recent_rate_on_or_before_the_day_applies():
    book = RateBook(target="USD", rates=RATES)
    assert book.convert(Decimal("8"), "EUR", date(2025, 3, 9)) == Decimal("10")
    assert book.convert(Decimal("9"), "EUR", date(2025, 3, 10)) == Decimal("10")
    assert book.convert(Decimal("9"), "EUR", date(2025, 12, 31)) == Decimal("10")


def test_days_before_the_first_rate_use_the_first_rate():
    book = RateBook(target="USD", rates=RATES)
    assert book.convert(Decimal("1"), "GBP", date(2020, 1, 1)) == Decimal("2")


def test_usd_is_the_pivot_whatever_the_table_says():
    book = RateBook(target="EUR", rates=RATES)
    assert book.convert(Decimal("10"), "USD", date(2025, 3, 2)) == Decimal("8")
    assert book.convert(Decimal("2"), "GBP", date(2025, 3, 12)) == Decimal("3.6")


def test_a_currency_without_a_rate_is_not_converted():
    book = RateBook(target="USD", rates=RATES)
    assert book.convert(Decimal("100"), "BRL", date(2025, 3, 2)) is None
    assert RateBook(target="BRL", rates=RATES).convert(Decimal("1"), "USD", date(2025, 3, 2)) \
        is None
    assert RateBook(target="BRL", rates=RATES).convert(Decimal("1"), "BRL", date(2025, 3, 2)) \
        == 1


def test_money_keeps_unconverted_amounts_apart_per_currency():
    book = RateBook(target="USD", rates=RATES)
    money = Money()
    money.add(book, Decimal("8"), "EUR", date(2025, 3, 2))
    money.add(book, Decimal("100"), "BRL", date(2025, 3, 2))
    money.add(book, Decimal("-40"), "BRL", date(2025, 3, 3))
    money.add(book, Decimal("5"), "JPY", date(2025, 3, 3))
    assert money.amount == Decimal("10")
    assert money.unconverted_list == [{"currency": "BRL", "amount": Decimal("60")},
                                      {"currency": "JPY", "amount": Decimal("5")}]
    assert money.known


def test_money_with_only_unconverted_amounts_is_unknown():
    money = Money()
    money.add(RateBook(target="USD", rates={}), Decimal("5"), "JPY", date(2025, 3, 3))
    assert money.amount == 0 and not money.known
    total = Money()
    total.merge(money)
    assert total.unconverted == {"JPY": Decimal("5")} and not total.known
