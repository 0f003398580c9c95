"""Past an app's ip_retention_days, beat masks IP addresses to /24 (IPv4) or /48 (IPv6) and
drops fingerprints in the hot store, the archive and installs; rows inside the limit, and other
apps' rows inside theirs, stay as they were. On a clock the test controls."""

from __future__ import annotations

import ipaddress

import pytest
from django.db import connection

from retention import policy
from retention.models import Progress
from retention.services import MASKING, retention_enforce
from tests.factories import AppFactory
from tests.retention.helpers import (
    UA,
    click_pair,
    days_ago,
    install_at,
    stored_click,
)
from tracking import partition_sql, partitions
from tracking.models import Click, ClickArchive, Install

pytestmark = pytest.mark.django_db

V4, V6 = "81.2.69.77", "2a02:1810:abcd:12:1:2:3:4"  # public: both have a network key


def test_addresses_past_the_limit_are_masked_and_fingerprints_dropped(app, now):
    old_v4 = click_pair(app, days_ago(now, 31), V4)
    old_v6 = click_pair(app, days_ago(now, 30.5), V6)
    young = click_pair(app, days_ago(now, 29), V4)
    old_install = install_at(app, days_ago(now, 31), V6, "dev-old")
    young_install = install_at(app, days_ago(now, 29), V4, "dev-young")

    outcome = retention_enforce(now=now)

    assert outcome.complete
    for model in (Click, ClickArchive):
        assert stored_click(model, old_v4) == {"ip": "81.2.69.0", "ip_prefix": "81.2.69.0/24",
                                               "fingerprint": "", "user_agent": UA}
        v6 = stored_click(model, old_v6)
        assert ipaddress.ip_address(v6["ip"]) == ipaddress.ip_address("2a02:1810:abcd::")
        assert v6["ip_prefix"] == "2a02:1810:abcd::/48"  # was the /64, narrower than kept
        assert v6["fingerprint"] == ""
        kept = stored_click(model, young)
        assert kept["ip"] == V4 and kept["fingerprint"] != ""
    assert ipaddress.ip_address(Install.objects.get(id=old_install.id).ip) == \
        ipaddress.ip_address("2a02:1810:abcd::")
    assert Install.objects.get(id=young_install.id).ip == V4
    assert outcome.masked == {"clicks": 2, "click_archive": 2, "installs": 1}


def test_each_run_masks_only_the_rows_that_crossed_the_line_since_the_last(app, now):
    click_pair(app, days_ago(now, 31), V4)
    later = click_pair(app, days_ago(now, 29), V4)
    retention_enforce(now=now)
    assert retention_enforce(now=now).masked == {"clicks": 0, "click_archive": 0,
                                                 "installs": 0}
    assert Progress.objects.get(table="click_archive", app=app).masked_through == \
        days_ago(now, 30)

    outcome = retention_enforce(now=days_ago(now, -2))  # two days on: the young click crossed

    assert outcome.masked["click_archive"] == 1
    assert stored_click(ClickArchive, later)["ip"] == "81.2.69.0"


def test_apps_keep_addresses_for_their_own_limits(app, now):
    strict = AppFactory(organization=app.organization, ip_retention_days=7)
    lenient = AppFactory(organization=app.organization, ip_retention_days=365,
                         raw_retention_days=730)
    strict_click = click_pair(strict, days_ago(now, 8), V4)
    lenient_click = click_pair(lenient, days_ago(now, 300), V4)
    default_click = click_pair(app, days_ago(now, 8), V4)

    retention_enforce(now=now)

    assert stored_click(ClickArchive, strict_click)["ip"] == "81.2.69.0"
    assert stored_click(ClickArchive, lenient_click)["ip"] == V4
    assert stored_click(ClickArchive, default_click)["ip"] == V4


def test_a_run_stopped_by_its_budget_keeps_its_progress_and_the_next_finishes(app, now):
    clicks = [click_pair(app, days_ago(now, 40 - n / 10), V4) for n in range(5)]
    first = retention_enforce(now=now, batch_size=2, budget_seconds=0)
    assert not first.complete
    assert 0 < first.masked["clicks"] < 5
    assert retention_enforce(now=now, batch_size=2).complete
    assert {stored_click(ClickArchive, c)["ip"] for c in clicks} == {"81.2.69.0"}


def test_addresses_that_never_were_any_are_left_as_they_are(app, now):
    install = install_at(app, days_ago(now, 40), None, "dev-no-ip")
    retention_enforce(now=now)
    assert Install.objects.get(id=install.id).ip is None


@pytest.mark.postgres
@pytest.mark.parametrize("address", [
    "203.0.113.77", "8.8.8.8", "2001:db8:abcd:12:1:2:3:4", "2001:db8::1", "::ffff:203.0.113.77",
    "fe80::1"])
def test_the_sql_mask_is_the_policys(address):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT host({MASKING.sql('a')}) "
                       "FROM (SELECT %s::inet AS a) AS given", [address])
        (masked,) = cursor.fetchone()
    assert ipaddress.ip_address(masked) == ipaddress.ip_address(policy.masked_ip(address))


@pytest.mark.postgres
def test_day_partitions_past_every_apps_limit_are_masked_whole(app, now):
    other = AppFactory(organization=app.organization, ip_retention_days=10)
    old_ids = [click_pair(app, days_ago(now, 45), V4), click_pair(other, days_ago(now, 44), V6)]
    partition_sql.partitions_ensure(now=now)  # the old days get partitions of their own
    # Progress of the per-app pass as if it had already reached the cutoffs: only the whole
    # pass can mask these rows now.
    for each in (app, other):
        Progress.objects.create(table="click_archive", app=each,
                                masked_through=days_ago(now, 10))

    outcome = retention_enforce(now=now)

    assert outcome.masked["click_archive"] == 2
    assert {stored_click(ClickArchive, c)["fingerprint"] for c in old_ids} == {""}
    whole = Progress.objects.get(table="click_archive", app=None)
    assert whole.masked_through <= days_ago(now, 30)  # only days past both apps' limits
    assert retention_enforce(now=now).masked["click_archive"] == 0


@pytest.mark.postgres
def test_hot_store_weeks_past_every_apps_limit_are_masked_whole(app, now):
    app.ip_retention_days = 1
    app.save()
    old = click_pair(app, days_ago(now, 15), V4)
    partition_sql.partitions_ensure(now=now)  # its week gets a partition of its own
    week = partitions.period_of(partitions.day_of(days_ago(now, 15)), partitions.WEEK)
    assert week in partition_sql.periods_attached("tracking_click")
    # the per-app pass is done: only the whole pass can mask the row now
    Progress.objects.create(table="clicks", app=app, masked_through=days_ago(now, 1))

    outcome = retention_enforce(now=now)

    assert outcome.masked["clicks"] == 1
    assert stored_click(Click, old)["fingerprint"] == ""
    assert stored_click(ClickArchive, old)["fingerprint"] == ""
    # done up to the end of the week, a Monday, never past the cutoff
    whole = Progress.objects.get(table="clicks", app=None)
    assert whole.masked_through == week.end <= days_ago(now, 1)
    assert retention_enforce(now=now).masked["clicks"] == 0
