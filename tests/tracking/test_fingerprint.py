"""The fingerprint scorer: pure, no database."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tracking import fingerprint
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def click(**overrides):
    values = dict(id=uuid.uuid4(), clicked_at=NOW - timedelta(minutes=10), media_source="fb",
                  campaign_id="c", ip="81.2.69.7", fingerprint="browser-1",
                  os_family="Android", os_version="14", device_model="SM-S918B",
                  accept_language="de-DE,de;q=0.9")
    values.update(overrides)
    return ClickCandidate(**values)


INSTALL = InstallSignals(platform="android", ip="81.2.69.7", os_family="Android",
                         os_version="14", device_model="SM-S918B", language="de_DE")


def test_same_ip_os_model_and_language_gives_the_maximum():
    result = fingerprint.score(click(), INSTALL, age=timedelta(0))
    assert result.confidence == 80.0
    assert result.factors == {"ip": 40, "os": 10, "os_version": 10, "device_model": 15,
                              "language": 10}


def test_same_network_scores_less_than_same_address():
    exact = fingerprint.score(click(), INSTALL, age=timedelta(0))
    network = fingerprint.score(click(ip="81.2.69.99"), INSTALL, age=timedelta(0))
    assert network.factors["ip"] == 25 and network.confidence < exact.confidence


def test_another_network_never_matches():
    result = fingerprint.score(click(ip="93.184.216.7"), INSTALL, age=timedelta(0))
    assert result.confidence == 0 and result.disqualified == "different network"


@pytest.mark.parametrize("address", ["10.1.2.3", "192.168.0.5", "127.0.0.1", "100.64.3.4",
                                     "172.16.0.1", "::1", "fe80::1", "not an ip"])
def test_private_loopback_and_carrier_nat_addresses_never_score(address):
    result = fingerprint.score(click(ip=address), InstallSignals(platform="android",
                                                                 ip=address), age=timedelta(0))
    assert result.confidence == 0
    assert fingerprint.network_key(address) == ""


def test_a_different_os_disqualifies():
    result = fingerprint.score(click(os_family="iOS"), INSTALL, age=timedelta(0))
    assert result.confidence == 0 and result.disqualified == "different OS"


def test_contradicting_version_model_and_language_pull_the_score_down():
    result = fingerprint.score(click(os_version="12", device_model="Pixel 7",
                                     accept_language="fr-FR"), INSTALL, age=timedelta(0))
    assert result.raw == 40 + 10 - 15 - 20 - 10
    assert result.confidence < fingerprint.THRESHOLD


def test_the_minor_version_counts_when_both_sides_know_it():
    same = fingerprint.score(click(os_version="17.2", os_family="iOS", device_model=""),
                             InstallSignals(platform="ios", ip="81.2.69.7", os_family="iOS",
                                            os_version="17.2"), age=timedelta(0))
    other = fingerprint.score(click(os_version="17.1", os_family="iOS", device_model=""),
                              InstallSignals(platform="ios", ip="81.2.69.7", os_family="iOS",
                                             os_version="17.2"), age=timedelta(0))
    assert same.factors["os_minor"] == 5 and other.factors["os_minor"] == -5


def test_safari_device_class_matches_the_sdk_machine_id():
    ios_click = click(os_family="iOS", os_version="17", device_model="iPhone",
                      accept_language="en-US")
    install = InstallSignals(platform="ios", ip="81.2.69.7", os_family="iOS", os_version="17",
                             device_model="iPhone15,2", language="en-US")
    assert fingerprint.score(ios_click, install, age=timedelta(0)).factors["device_model"] == 5


def test_confidence_decays_below_the_threshold_within_a_day():
    fresh = fingerprint.score(click(), INSTALL, age=timedelta(hours=1)).confidence
    day_old = fingerprint.score(click(), INSTALL, age=timedelta(hours=24)).confidence
    assert fresh >= 79
    assert day_old < fingerprint.THRESHOLD


def test_no_decay_in_the_first_hour_then_a_perfect_match_reaches_60_at_23_hours():
    assert fingerprint.decay(timedelta(minutes=59)) == 1.0
    assert fingerprint.decay(timedelta(hours=23)) == pytest.approx(
        fingerprint.THRESHOLD / fingerprint.MAX_CONFIDENCE)
    assert fingerprint.decay(timedelta(hours=12)) > fingerprint.decay(timedelta(hours=13))
    assert fingerprint.decay(timedelta(days=6)) == 0.0


def test_a_fresh_exact_address_os_and_language_match_qualifies_only_while_fresh():
    bare = click(os_version="", device_model="")  # Chrome's reduced User-Agent tells no more
    minutes_old = fingerprint.score(bare, INSTALL, age=timedelta(minutes=20))
    assert minutes_old.raw == 60 and minutes_old.confidence == fingerprint.THRESHOLD
    assert fingerprint.score(bare, INSTALL, age=timedelta(hours=2)).confidence < 60


def test_other_devices_scoring_alike_on_one_network_lower_the_score():
    mine = click(fingerprint="browser-mine")
    alone = fingerprint.rank([mine], INSTALL, installed_at=NOW)
    neighbour = click(fingerprint="browser-other", ip="81.2.69.99")
    crowded = fingerprint.rank([mine, neighbour], INSTALL, installed_at=NOW)
    assert alone[0].confidence - crowded[0].confidence == fingerprint.AMBIGUITY_PENALTY


def test_an_address_many_devices_clicked_from_counts_for_less():
    mine = click(fingerprint="browser-mine")
    alone = fingerprint.rank([mine], INSTALL, installed_at=NOW)[0]
    others = [click(fingerprint=f"other-{n}", accept_language="fr") for n in range(3)]
    ranked = {s.click.id: s for s in fingerprint.rank([mine, *others], INSTALL,
                                                      installed_at=NOW)}
    assert ranked[mine.id].crowd_penalty == 3 * fingerprint.CROWD_PENALTY_PER_DEVICE
    assert ranked[mine.id].confidence == alone.confidence - ranked[mine.id].penalty


def test_devices_of_another_os_do_not_crowd_an_address():
    mine = click(fingerprint="browser-mine")
    iphones = [click(fingerprint=f"iphone-{n}", os_family="iOS") for n in range(5)]
    ranked = {s.click.id: s for s in fingerprint.rank([mine, *iphones], INSTALL,
                                                      installed_at=NOW)}
    assert ranked[mine.id].penalty == 0


def test_many_alike_devices_refuse_the_match():
    crowd = [click(fingerprint=f"browser-{n}") for n in range(4)]
    assert all(s.confidence == 0 for s in fingerprint.rank(crowd, INSTALL, installed_at=NOW))


def test_two_clicks_from_the_same_browser_are_not_rivals():
    a, b = click(), click(clicked_at=NOW - timedelta(minutes=5))
    ranked = fingerprint.rank([a, b], INSTALL, installed_at=NOW)
    assert all(s.penalty == 0 for s in ranked)


def test_ipv4_mapped_ipv6_is_the_same_address():
    result = fingerprint.score(click(ip="::ffff:81.2.69.7"), INSTALL, age=timedelta(0))
    assert result.factors["ip"] == 40


def _slow_network_key(address):
    found = fingerprint._scoring_address_slow(address)
    return found.network if found else ""


@pytest.mark.parametrize("address", [
    "81.2.69.7", "0.0.0.0", "0.1.2.3", "9.255.255.255", "10.0.0.1", "11.0.0.1", "100.63.255.255",
    "100.64.0.0", "100.127.255.255", "100.128.0.0", "127.0.0.1", "169.254.1.1", "172.15.0.1",
    "172.16.0.1", "172.31.255.255", "172.32.0.1", "192.0.0.1", "192.0.0.8", "192.0.0.9",
    "192.0.0.10", "192.0.0.170", "192.0.0.171", "192.0.0.172", "192.0.0.255", "192.0.2.1",
    "192.88.99.1", "192.168.1.1", "198.18.0.1", "198.20.0.1", "198.51.100.1", "203.0.113.9",
    "223.255.255.255", "224.0.0.1", "239.255.255.255", "240.0.0.1", "255.255.255.254",
    "255.255.255.255", "01.2.3.4", "1.2.3.04", "1.2.3", "1.2.3.4.5", "1.2.3.256", "1.2.3.-1",
    "1.2.3.+1", "1.2.3. 4", " 1.2.3.4", "1.2.3.٤", "1.2.3.", ".1.2.3", "::ffff:81.2.69.7",
    "2001:db8::1", "2a00:1450:4001:81b::200e", "::1", "", "garbage"])
def test_the_fast_ipv4_path_agrees_with_ipaddress(address):
    assert fingerprint.network_key(address) == _slow_network_key(address)
    fast, slow = fingerprint.scoring_address(address), fingerprint._scoring_address_slow(address)
    assert (fast is None) == (slow is None) and (fast is None or fast.text == slow.text)


@pytest.mark.parametrize("address,scores", [
    ("192.0.0.100", False), ("192.0.0.8", False), ("192.0.0.9", True), ("192.0.0.10", True),
    ("192.0.0.11", False), ("::ffff:192.0.0.100", False), ("192.0.1.1", True)])
def test_which_addresses_score_does_not_depend_on_the_python_version(address, scores):
    # IANA's registry as Python 3.13 has it: 192.0.0.0/24 is not globally reachable but for
    # .9 and .10 (Python 3.11's `is_private` knew only 192.0.0.0/29 and 192.0.0.170/31).
    assert (fingerprint.network_key(address) != "") is scores


def test_the_fast_ipv4_path_agrees_with_ipaddress_on_random_addresses():
    import random

    rng = random.Random(7)
    for _ in range(20_000):
        address = ".".join(str(rng.choice([rng.randrange(256), rng.choice(
            [0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255])])) for _ in range(4))
        assert fingerprint.network_key(address) == _slow_network_key(address), address
