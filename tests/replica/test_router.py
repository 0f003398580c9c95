"""The router's rules without HTTP (attribution_site/replica.py): which database a read of
each model goes to inside and outside a report, that writes always go to the primary, that
the replica is never migrated, and what a report does when the replica does not answer."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import DEFAULT_DB_ALIAS, connections, router

from accounts.models import Organization
from analytics.models import (
    AppReportSettings,
    CampaignCost,
    CurrencyRate,
    DailyInstallStat,
    DailyRetentionStat,
    RollupDirtyDay,
    RollupState,
)
from apps_registry.models import ApiKey, App
from attribution_site import replica
from attribution_site.replica import REPLICA, carried, primary_reads, reports
from conversion.models import ConversionSchema
from delivery.models import Delivery, DeliveryAttempt, PostbackConfig, Webhook
from links.models import Link, LinkDomain, LinkOpen
from skan.models import AdNetwork, AppAdNetworkName, Postback
from tracking.models import Click, ClickArchive, Event, Install, Reengagement

REPORT_FIGURES = [DailyInstallStat, DailyRetentionStat, RollupState, RollupDirtyDay,
                  CampaignCost, CurrencyRate, Install, Event, ClickArchive, Click, Reengagement,
                  Delivery, DeliveryAttempt, Postback, LinkOpen]
# What a request must see right after the one before it wrote it: people, apps, keys, and
# every configuration.
PRIMARY_ONLY = [get_user_model(), Organization, Session, App, ApiKey, PostbackConfig, Webhook,
                ConversionSchema, Link, LinkDomain, AdNetwork, AppAdNetworkName,
                AppReportSettings]


@pytest.mark.parametrize("model", REPORT_FIGURES + PRIMARY_ONLY)
def test_outside_a_report_every_read_goes_to_the_primary(mirror_replica, model):
    assert router.db_for_read(model) == DEFAULT_DB_ALIAS


@pytest.mark.parametrize("model", REPORT_FIGURES)
def test_inside_a_report_its_figures_are_read_from_the_replica(mirror_replica, model):
    with reports() as chosen:
        assert chosen == REPLICA
        assert router.db_for_read(model) == REPLICA


@pytest.mark.parametrize("model", PRIMARY_ONLY)
def test_inside_a_report_people_apps_and_configurations_are_read_from_the_primary(
        mirror_replica, model):
    with reports():
        assert router.db_for_read(model) == DEFAULT_DB_ALIAS
        # Reached from a row read on the replica, too: Django would follow the row there.
        row = Install()
        row._state.db = REPLICA
        assert router.db_for_read(model, instance=row) == DEFAULT_DB_ALIAS


@pytest.mark.parametrize("model", REPORT_FIGURES + PRIMARY_ONLY)
def test_writes_always_go_to_the_primary(mirror_replica, model):
    assert router.db_for_write(model) == DEFAULT_DB_ALIAS
    with reports():
        assert router.db_for_write(model) == DEFAULT_DB_ALIAS


def test_the_replica_is_never_migrated():
    assert router.allow_migrate(REPLICA, "tracking", model_name="install") is False
    assert router.allow_migrate(DEFAULT_DB_ALIAS, "tracking", model_name="install") is True


def test_without_a_replica_a_report_reads_the_primary(db):
    assert not replica.configured()
    with reports() as chosen:
        assert chosen == DEFAULT_DB_ALIAS
        assert router.db_for_read(Install) == DEFAULT_DB_ALIAS


def test_a_write_inside_a_report_reads_what_it_writes_on_the_primary(mirror_replica):
    with reports():
        with primary_reads():
            assert router.db_for_read(RollupState) == DEFAULT_DB_ALIAS
        assert router.db_for_read(RollupState) == REPLICA


def test_a_stream_read_after_its_view_returned_stays_on_the_replica(mirror_replica):
    def aliases():
        for _ in range(2):
            yield router.db_for_read(Install)

    with reports():
        stream = carried(aliases())
    # Iterated here, outside the block, as a WSGI server iterates a streamed body.
    assert list(stream) == [REPLICA, REPLICA]
    assert router.db_for_read(Install) == DEFAULT_DB_ALIAS


def test_an_unreachable_replica_sends_the_report_to_the_primary_with_one_warning(
        dead_replica, caplog):
    with caplog.at_level(logging.WARNING, logger="attribution_site.replica"):
        with reports() as chosen:
            assert chosen == DEFAULT_DB_ALIAS
            assert router.db_for_read(Install) == DEFAULT_DB_ALIAS
        tried = len(dead_replica)
        assert tried >= 1
        # Remembered: the next reports do not try again until RETRY_AFTER_SECONDS passed.
        for _ in range(3):
            with reports() as chosen:
                assert chosen == DEFAULT_DB_ALIAS
    assert len(dead_replica) == tried
    warnings = [r for r in caplog.records if "read replica does not answer" in r.getMessage()]
    assert len(warnings) == 1


def test_an_unreachable_replica_is_tried_again_once_the_pause_is_over(dead_replica):
    with reports():
        pass
    tried = len(dead_replica)
    replica._retry_at = 0.0  # as if RETRY_AFTER_SECONDS had passed
    with reports():
        pass
    assert len(dead_replica) > tried


@pytest.mark.postgres  # SQLite connections are always usable
def test_a_kept_connection_to_a_replica_that_restarted_is_replaced(mirror_replica):
    connection = connections[REPLICA]
    connection.ensure_connection()
    connection.connection.close()  # the server went away under the kept connection
    with reports() as chosen:
        assert chosen == REPLICA
        assert connection.is_usable()
