"""Each tier of the waterfall reads clicks of the window [install - 7 days, install], edges
included, and no others: the lookups bound `clicked_at` in the statement so that PostgreSQL
reads only the day partitions the window reaches (tracking/sql.py), and a click just inside an
edge still attributes while one just outside does not. On PostgreSQL the clicks sit in day
partitions of their own, as beat makes them."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.tracking.helpers import ANDROID_BROWSER, ANDROID_SDK, PUBLIC_IP
from tracking import attribution, fingerprint, partition_sql, services, sql
from tracking.referrer import store_referrer

pytestmark = pytest.mark.django_db

OTHER_IP = "198.51.100.7"
TICK = timedelta(microseconds=1)


@pytest.fixture
def now():
    moment = timezone.now()
    if connection.vendor == "postgresql":  # every day of the window in its own partition
        partition_sql.partitions_ensure(now=moment, since=moment - timedelta(days=9))
    return moment


def record_click(app, *, at, device=None):
    return services.click_record(click=services.ClickInput(
        app_id=app.id, campaign_id="edge", media_source="edge_network", adset="", ad="",
        advertising_id=device, ip=PUBLIC_IP, user_agent=ANDROID_BROWSER,
        accept_language="en-US", clicked_at=at))


def record_install(app, *, at, **report):
    return services.install_record(data=services.InstallReport(
        app_id=app.id, platform="android", sdk_version="2.4.0", user_agent=ANDROID_SDK,
        **report), now=at).install


def installed_through(tier, app, *, clicked_at, installed_at):
    if tier == "install_referrer":
        click_id = record_click(app, at=clicked_at)
        return record_install(app, at=installed_at, ip=OTHER_IP, install_referrer=store_referrer(
            click_id=click_id, media_source="edge_network", campaign_id="edge"))
    if tier == "device_id":
        record_click(app, at=clicked_at, device="gaid-edge")
        return record_install(app, at=installed_at, ip=OTHER_IP, device_id="gaid-edge")
    record_click(app, at=clicked_at)
    return record_install(app, at=installed_at, ip=PUBLIC_IP, os_version="14",
                          device_model="SM-S918B", language="en-US")


TIERS = ("install_referrer", "device_id", "fingerprint")
INSIDE = {"the first moment": -attribution.WINDOW,
          "a second after the first": -attribution.WINDOW + timedelta(seconds=1),
          "an hour before the install": -timedelta(hours=1),
          "the install's moment": timedelta(0)}
OUTSIDE = {"just before": -attribution.WINDOW - TICK,
           "a day before": -attribution.WINDOW - timedelta(days=1),
           "just after": TICK}


# A fingerprint's score decays below the threshold within a day, so its tier never attributes
# a click near the window's first moment: its lookup's edges are tested with the others' below.
ATTRIBUTING = [(tier, edge) for tier in TIERS for edge in INSIDE
               if tier != "fingerprint" or INSIDE[edge] > -timedelta(days=1)]


@pytest.mark.parametrize(("tier", "edge"), ATTRIBUTING)
def test_a_click_just_inside_the_window_attributes(app, now, tier, edge):
    clicked_at = now + INSIDE[edge]
    install = installed_through(tier, app, clicked_at=clicked_at, installed_at=now)
    assert (install.match_type, install.media_source, install.attributed_touch_time) == (
        tier, "edge_network", clicked_at)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("edge", OUTSIDE)
def test_a_click_just_outside_the_window_does_not(app, now, tier, edge):
    install = installed_through(tier, app, clicked_at=now + OUTSIDE[edge], installed_at=now)
    assert (install.match_type, install.is_organic, install.click_id) == ("organic", True, None)


@pytest.mark.parametrize("edge", [*INSIDE, *OUTSIDE])
def test_each_lookup_reads_the_clicks_of_the_window_edges_included(app, now, edge):
    offset = INSIDE.get(edge, OUTSIDE.get(edge))
    click_id = record_click(app, at=now + offset, device="gaid-edge")
    inputs = sql.attribution_inputs(
        app_id=app.id, device_id="gaid-edge", referrer_click_id=click_id,
        ip_prefix=fingerprint.network_key(PUBLIC_IP), since=now - attribution.WINDOW,
        until=now)
    found = ([inputs.referrer_click.id] if inputs.referrer_click else [],
             [c.id for c in inputs.device_clicks], [c.id for c in inputs.network_clicks])
    assert found == (([click_id], [click_id], [click_id]) if edge in INSIDE else ([], [], []))
