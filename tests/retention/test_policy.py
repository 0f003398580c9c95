"""The retention rules (retention/policy.py), without a database: the masks, each app's
cutoffs on a given clock, which day partitions every app's limit has passed, and when
enforcement counts as behind."""

import ipaddress
from datetime import UTC, date, datetime, timedelta

import pytest

from analytics.rollups.figures import RETENTION_MAX_AGE
from apps_registry import app_fields
from retention import policy
from tracking.attribution import WINDOW
from tracking.partitions import WEEK, Period

NOW = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("address", "masked"), [
    ("203.0.113.77", "203.0.113.0"),
    ("203.0.113.0", "203.0.113.0"),
    ("8.8.8.8", "8.8.8.0"),
    ("2001:db8:abcd:12:1:2:3:4", "2001:db8:abcd::"),
    ("2001:db8:abcd:ffff::1", "2001:db8:abcd::"),
    ("2001:db8::", "2001:db8::"),
    (" 198.51.100.9 ", "198.51.100.0"),
])
def test_an_address_keeps_its_24_or_48_network_and_loses_the_rest(address, masked):
    assert policy.masked_ip(address) == masked


def test_an_ipv4_address_written_as_ipv6_keeps_the_ipv4_rule():
    assert policy.masked_ip("::ffff:203.0.113.77") == "::ffff:203.0.113.0"
    assert ipaddress.ip_address(policy.masked_ip("::ffff:cb00:714d")).ipv4_mapped == \
        ipaddress.ip_address("203.0.113.0")


def test_text_that_is_no_address_masks_to_nothing():
    assert policy.masked_ip("not an address") == ""
    assert policy.masked_ip("") == ""


def test_a_network_key_narrower_than_what_is_kept_widens_to_the_48():
    assert policy.masked_network_key("2001:db8:abcd:12::/64", "2001:db8:abcd:12::9") == \
        "2001:db8:abcd::/48"
    assert policy.masked_network_key("203.0.113.0/24", "203.0.113.77") == "203.0.113.0/24"
    assert policy.masked_network_key("", "10.0.0.1") == ""  # a private address never scored


def test_each_app_has_its_own_cutoffs_on_the_clock_it_is_given():
    limits = {"a": policy.Limits(ip_days=30, raw_days=730), "b": policy.Limits(1, 45)}
    assert policy.cutoffs_by_app(now=NOW, limits=limits, raw=False) == {
        "a": NOW - timedelta(days=30), "b": NOW - timedelta(days=1)}
    assert policy.cutoffs_by_app(now=NOW, limits=limits, raw=True) == {
        "a": NOW - timedelta(days=730), "b": NOW - timedelta(days=45)}


def test_the_defaults_are_thirty_days_of_addresses_and_two_years_of_raw_rows():
    assert policy.Limits() == policy.Limits(ip_days=30, raw_days=730)


def test_the_common_cutoff_is_the_longest_limit_and_none_without_apps():
    assert policy.common_cutoff([NOW, NOW - timedelta(days=3)]) == NOW - timedelta(days=3)
    assert policy.common_cutoff([]) is None


def test_only_partitions_wholly_past_every_apps_limit_may_go_whole():
    days = [Period(date(2026, 3, n)) for n in (1, 2, 3)]
    assert policy.whole_periods(days, cutoff=datetime(2026, 3, 3, tzinfo=UTC)) == days[:2]
    assert policy.whole_periods(days, cutoff=datetime(2026, 3, 2, 23, 59, tzinfo=UTC)) == \
        days[:1]
    assert policy.whole_periods(days, cutoff=None) == []  # no app: nothing is past every limit
    week = Period(date(2026, 3, 2), WEEK)  # the hot store's: Monday 2 to Monday 9
    assert policy.whole_periods([week], cutoff=datetime(2026, 3, 8, 23, tzinfo=UTC)) == []
    assert policy.whole_periods([week], cutoff=datetime(2026, 3, 9, tzinfo=UTC)) == [week]


def test_raw_rows_cannot_outlive_the_limit_on_their_address():
    assert app_fields.retention_limits_problem(ip_days=30, raw_days=30) is None
    field, message = app_fields.retention_limits_problem(ip_days=60, raw_days=45)
    assert field == "raw_retention_days" and "ip_retention_days (60)" in message


def test_raw_rows_are_kept_as_long_as_the_rollups_read_back():
    assert app_fields.RAW_RETENTION_MINIMUM_DAYS >= RETENTION_MAX_AGE + WINDOW.days


def test_enforcement_is_behind_only_more_than_a_day_after_the_cutoff():
    cutoff = NOW - timedelta(days=30)
    assert not policy.behind(cutoff=cutoff, reached=cutoff)
    assert not policy.behind(cutoff=cutoff, reached=cutoff - timedelta(hours=23))
    assert policy.behind(cutoff=cutoff, reached=cutoff - timedelta(days=1, seconds=1))


def test_a_run_is_stale_after_two_days_and_a_new_instance_is_not():
    assert not policy.run_stale(now=NOW, last_finished=NOW - timedelta(hours=47),
                                first_app_created=None)
    assert policy.run_stale(now=NOW, last_finished=NOW - timedelta(hours=49),
                            first_app_created=None)
    assert not policy.run_stale(now=NOW, last_finished=None,
                                first_app_created=NOW - timedelta(days=1))
    assert policy.run_stale(now=NOW, last_finished=None,
                            first_app_created=NOW - timedelta(days=3))
    assert not policy.run_stale(now=NOW, last_finished=None, first_app_created=None)
