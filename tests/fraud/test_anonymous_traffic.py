"""anonymous_traffic (fraud/networks.py): listed networks per app and service-wide, and a
MaxMind-format anonymous-IP database. The database is written here with mmdb-writer in the
GeoIP2 Anonymous IP layout (MaxMind's published test database could not be fetched), and read
back by maxminddb, MaxMind's reader, as in production."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from mmdb_writer import MMDBWriter
from netaddr import IPSet

from fraud import networks
from fraud import services as fraud_services
from fraud import verdict as v
from tests.fraud.helpers import click
from tracking.models import Install

VPN_ADDRESS = "198.51.100.20"
TOR_ADDRESS = "2001:db8:1::5"
HOME_ADDRESS = "81.2.69.142"


@pytest.fixture
def anonymous_ip_database(tmp_path, settings):
    writer = MMDBWriter(ip_version=6, ipv4_compatible=True,
                        database_type="GeoIP2-Anonymous-IP", description="test")
    writer.insert_network(IPSet(["198.51.100.0/24"]),
                          {"is_anonymous": True, "is_anonymous_vpn": True})
    writer.insert_network(IPSet(["2001:db8:1::/48"]),
                          {"is_anonymous": True, "is_tor_exit_node": True})
    path = tmp_path / "GeoIP2-Anonymous-IP-Test.mmdb"
    writer.to_db_file(str(path))
    settings.FRAUD_ANONYMOUS_IP_DATABASE = str(path)
    return path


def test_the_database_names_the_flag_that_matched(anonymous_ip_database):
    assert networks.anonymous_reason(VPN_ADDRESS, app_networks=()) == v.Reason(
        v.ANONYMOUS_TRAFFIC, None, "is_anonymous_vpn")
    assert networks.anonymous_reason(TOR_ADDRESS, app_networks=()) == v.Reason(
        v.ANONYMOUS_TRAFFIC, None, "is_tor_exit_node")
    assert networks.anonymous_reason(HOME_ADDRESS, app_networks=()) is None


def test_listed_networks_match_per_app_and_service_wide(settings):
    settings.FRAUD_LISTED_NETWORKS = ["203.0.113.0/24"]
    listed = v.Reason(v.ANONYMOUS_TRAFFIC, None, "listed_network")
    assert networks.anonymous_reason("203.0.113.9", app_networks=()) == listed
    assert networks.anonymous_reason("192.0.2.1", app_networks=("192.0.2.0/28",)) == listed
    assert networks.anonymous_reason("192.0.2.17", app_networks=("192.0.2.0/28",)) is None
    assert networks.anonymous_reason(None, app_networks=("0.0.0.0/0",)) is None


def test_a_bad_service_wide_network_or_database_stops_the_start(settings, tmp_path):
    settings.FRAUD_LISTED_NETWORKS = ["not-a-network"]
    with pytest.raises(ImproperlyConfigured, match="FRAUD_LISTED_NETWORKS"):
        networks.check_configuration()
    settings.FRAUD_LISTED_NETWORKS = []
    settings.FRAUD_ANONYMOUS_IP_DATABASE = str(tmp_path / "missing.mmdb")
    with pytest.raises(ImproperlyConfigured, match="FRAUD_ANONYMOUS_IP_DATABASE"):
        networks.check_configuration()


def install_from(sdk, app, address):
    return sdk.post("/api/v1/installs", {"app_id": str(app.id), "platform": "android",
                                         "sdk_version": "6.0.0", "device_id": "gaid-1"},
                    format="json", REMOTE_ADDR=address)


@pytest.mark.django_db
def test_anonymous_traffic_is_off_by_default(sdk, app, anonymous_ip_database):
    click(app, seconds_ago=600)
    install_from(sdk, app, VPN_ADDRESS)
    assert Install.objects.get().fraud_status == v.CLEAN


@pytest.mark.django_db
def test_in_block_mode_an_install_from_a_vpn_is_not_credited(sdk, app, anonymous_ip_database):
    fraud_services.settings_update(app_id=app.id,
                                   changes={"anonymous_traffic_mode": v.BLOCK})
    click(app, seconds_ago=600)
    answer = install_from(sdk, app, VPN_ADDRESS).json()["data"]
    assert answer["isOrganic"] is True
    row = Install.objects.get()
    assert (row.fraud_status, row.fraud_reasons) == (v.BLOCKED, [
        {"reason": "anonymous_traffic", "value": None, "sub_reason": "is_anonymous_vpn"}])
    assert row.decision["fraud"]["refused"]["media_source"] == "network_a"


@pytest.mark.django_db
def test_in_flag_mode_a_listed_network_credits_and_flags(sdk, app):
    fraud_services.settings_update(app_id=app.id, changes={
        "anonymous_traffic_mode": v.FLAG, "listed_networks": ["192.0.2.0/24"]})
    click(app, seconds_ago=600)
    install_from(sdk, app, "192.0.2.44")
    row = Install.objects.get()
    assert (row.media_source, row.fraud_status) == ("network_a", v.FLAGGED)
