"""console.tables: sorting from the query string and how figures print. Pure: no database."""

from dataclasses import dataclass
from decimal import Decimal

from console import tables
from console.tables import Column


@dataclass
class Row:
    name: str
    cpi: Decimal | None


COLUMNS = [Column("name", "Name", numeric=False, value=lambda r: r.name),
           Column("cpi", "CPI", value=lambda r: r.cpi)]
ROWS = [Row("beta", Decimal(2)), Row("Alpha", None), Row("gamma", Decimal(5))]


def names(rows):
    return [row.name for row in rows]


def test_no_sort_keeps_the_reports_order():
    sort = tables.sort_from_query({}, COLUMNS)
    assert sort.column is None
    assert names(tables.sorted_rows(ROWS, COLUMNS, sort)) == ["beta", "Alpha", "gamma"]


def test_an_unknown_column_keeps_the_reports_order():
    sort = tables.sort_from_query({"sort": "password", "dir": "asc"}, COLUMNS)
    assert names(tables.sorted_rows(ROWS, COLUMNS, sort)) == ["beta", "Alpha", "gamma"]


def test_names_sort_without_regard_to_case():
    sort = tables.sort_from_query({"sort": "name", "dir": "asc"}, COLUMNS)
    assert names(tables.sorted_rows(ROWS, COLUMNS, sort)) == ["Alpha", "beta", "gamma"]


def test_a_missing_figure_sorts_last_in_both_directions():
    up = tables.sort_from_query({"sort": "cpi", "dir": "asc"}, COLUMNS)
    down = tables.sort_from_query({"sort": "cpi", "dir": "desc"}, COLUMNS)
    assert names(tables.sorted_rows(ROWS, COLUMNS, up)) == ["beta", "gamma", "Alpha"]
    assert names(tables.sorted_rows(ROWS, COLUMNS, down)) == ["gamma", "beta", "Alpha"]


def test_any_direction_but_asc_is_descending():
    assert tables.sort_from_query({"sort": "cpi", "dir": "sideways"}, COLUMNS).descending


def test_headers_link_the_other_direction_of_the_sorted_column_and_mark_it():
    sort = tables.sort_from_query({"sort": "cpi", "dir": "desc"}, COLUMNS)
    name, cpi = tables.headers(COLUMNS, sort, {"range": "7d", "model": "linear"})
    assert name.href == "?range=7d&model=linear&sort=name&dir=asc"
    assert name.aria_sort is None and name.arrow == ""
    assert cpi.href == "?range=7d&model=linear&sort=cpi&dir=asc"
    assert cpi.aria_sort == "descending" and cpi.numeric


def test_figures_sort_descending_first():
    (_name, cpi) = tables.headers(COLUMNS, tables.Sort(column=None, direction="desc"), {})
    assert cpi.href == "?sort=cpi&dir=desc"


def test_money_is_rounded_half_up_to_cents_with_its_currency():
    assert tables.money(Decimal("1234.565"), "EUR") == "1,234.57 EUR"
    assert tables.money(Decimal("-10"), "USD") == "-10.00 USD"
    assert tables.money(None, "USD") == "—"


def test_a_ratio_without_a_denominator_is_a_dash():
    assert tables.percent(None) == "—"
    assert tables.percent(Decimal("66.6666")) == "66.67%"


def test_whole_installs_print_as_integers_and_shares_with_two_decimals():
    assert tables.count(1234) == "1,234"
    assert tables.count(Decimal("2.0000000000")) == "2"
    assert tables.count(Decimal("1.6666666667")) == "1.67"
