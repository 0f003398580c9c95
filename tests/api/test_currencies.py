"""The one currency check every entry point uses (docs/analytics.md, "Currencies"). Pure."""

import pytest

from attribution_site.currencies import currency_code


@pytest.mark.parametrize("raw,code", [("USD", "USD"), ("eur", "EUR"), (" gbp ", "GBP"),
                                      ("JPY", "JPY")])
def test_an_active_iso_4217_code_is_read_in_capitals(raw, code):
    assert currency_code(raw) == code


@pytest.mark.parametrize("raw", ["XYZ", "ERU", "US", "EURO", "", "   ", None, 840, ["USD"]])
def test_three_capitals_that_name_no_currency_are_not_a_currency(raw):
    assert currency_code(raw) is None
