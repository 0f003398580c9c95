"""Probabilistic (fingerprint) matching of an install to a click (spec: waterfall, priority 3).
Pure: no ORM, no clock; the click's age is passed in.

The browser that clicked and the SDK that installs send different User-Agents, so a bare hash
equality almost never matches. Instead the signals both sides carry are compared and scored
(weights below, explained in docs/attribution.md). The IP is required: without the same address
or /24 network nothing else is specific enough. Private, loopback and carrier-grade NAT
addresses never score, since thousands of devices share them. After a first hour the score
decays with the click's age so that even a perfect match falls below the 60 threshold within a
day, and it is lowered when other devices on the same network score alike.
"""

from __future__ import annotations

import hashlib
import ipaddress
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from typing import NamedTuple

from attribution_site.addresses import dotted_quad
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

IP_EXACT = 40
IP_NETWORK = 25
OS_FAMILY = 10
OS_MAJOR_MATCH, OS_MAJOR_MISMATCH = 10, -15
OS_MINOR_MATCH, OS_MINOR_MISMATCH = 5, -5  # both sides rarely know it on Android
MODEL_MATCH, MODEL_CLASS_MATCH, MODEL_MISMATCH = 15, 5, -20
LANGUAGE_EXACT, LANGUAGE_PRIMARY, LANGUAGE_MISMATCH = 10, 5, -10

MAX_CONFIDENCE = 80.0
THRESHOLD = 60.0
# Decay: none in the first hour (addresses and devices do not change that fast), then linear so
# that a perfect 80 reaches the threshold at 23 hours and no fingerprint match survives a day.
FRESH_HOURS = 1.0
STALE_HOURS = 23.0
AMBIGUITY_MARGIN = 10.0
AMBIGUITY_PENALTY = 10.0
MAX_RIVALS = 2  # three or more other devices scoring alike: refuse the match
CROWD_PENALTY_PER_DEVICE = 1.5  # per other look-alike device seen on the same address
MAX_CROWD_PENALTY = 8.0

# IPv4 ranges whose addresses never score: IANA's special-purpose registry (the ranges that are
# not globally reachable, as Python 3.13's `is_private` has them; older Pythons left most of
# 192.0.0.0/24 out), carrier-grade NAT, link-local, loopback, multicast and reserved. Our own
# table, so the answer does not change with the Python version. Integer intervals, so the
# common case never builds an `ipaddress` object.
_NOT_SCORING_V4 = sorted(
    [(int(net.network_address), int(net.broadcast_address)) for net in map(ipaddress.ip_network, (
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
        "172.16.0.0/12", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4"))]
    # 192.0.0.0/24 but for 192.0.0.9 and 192.0.0.10, which are globally reachable.
    + [(int(ipaddress.IPv4Address("192.0.0.0")), int(ipaddress.IPv4Address("192.0.0.8"))),
       (int(ipaddress.IPv4Address("192.0.0.11")), int(ipaddress.IPv4Address("192.0.0.255")))])
_NOT_SCORING_STARTS = [start for start, _ in _NOT_SCORING_V4]


def _v4_scores(number: int) -> bool:
    index = bisect_right(_NOT_SCORING_STARTS, number) - 1
    return not (index >= 0 and number <= _NOT_SCORING_V4[index][1])


class Address(NamedTuple):
    """An address that can identify a network: its canonical text and its network key."""

    text: str
    network: str


@lru_cache(maxsize=4096)  # the install's own address comes back for every candidate
def scoring_address(ip: str | None) -> Address | None:
    """The address if it can identify a network, else None.

    Plain dotted quads (nearly every address we see) are checked against integer ranges:
    a microsecond or two, with no cache to miss on a million networks. Everything else (IPv6,
    IPv4-mapped IPv6, odd text) goes through `ipaddress`, cached per address."""
    if not ip:
        return None
    quad = dotted_quad(ip)
    if quad is not None:
        a, b, c, d = quad
        if not _v4_scores(a << 24 | b << 16 | c << 8 | d):
            return None
        return Address(ip, f"{a}.{b}.{c}.0/24")
    return _scoring_address_slow(ip)


@lru_cache(maxsize=65536)
def _scoring_address_slow(ip: str) -> Address | None:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if address.version == 4:
        if not _v4_scores(int(address)):
            return None
    elif (address.is_private or address.is_loopback or address.is_link_local
            or address.is_multicast or address.is_reserved or address.is_unspecified):
        return None
    prefix = 24 if address.version == 4 else 64
    return Address(str(address),
                   str(ipaddress.ip_network(f"{address}/{prefix}", strict=False)))


def network_key(ip: str | None) -> str:
    """The /24 (IPv4) or /64 (IPv6) an address belongs to; '' when it must not score."""
    address = scoring_address(ip)
    return address.network if address is not None else ""


def click_fingerprint(ip: str, user_agent: str) -> str:
    return hashlib.sha256(f"{ip}|{user_agent}".encode()).hexdigest()


@lru_cache(maxsize=1024)
def language_tag(value: str) -> str:
    """'en-US,en;q=0.9' or 'en_US' -> 'en-us'."""
    first = value.split(",", 1)[0].split(";", 1)[0].strip()
    return first.replace("_", "-").lower()


@dataclass(frozen=True)
class Score:
    confidence: float
    raw: int
    factors: dict[str, int] = field(default_factory=dict)
    disqualified: str = ""


def score(click: ClickCandidate, install: InstallSignals, *, age: timedelta) -> Score:
    factors: dict[str, int] = {}
    click_ip, install_ip = scoring_address(click.ip), scoring_address(install.ip)
    if click_ip is None or install_ip is None:
        return Score(0.0, 0, disqualified="no usable IP address")
    if click_ip.text == install_ip.text:
        factors["ip"] = IP_EXACT
    elif click_ip.network == install_ip.network:
        factors["ip"] = IP_NETWORK
    else:
        return Score(0.0, 0, disqualified="different network")

    if click.os_family and install.os_family:
        if click.os_family != install.os_family:
            return Score(0.0, 0, {"ip": factors["ip"]}, disqualified="different OS")
        factors["os"] = OS_FAMILY
    click_version, install_version = click.os_version.split("."), install.os_version.split(".")
    if click_version[0] and install_version[0]:
        same_major = click_version[0] == install_version[0]
        factors["os_version"] = OS_MAJOR_MATCH if same_major else OS_MAJOR_MISMATCH
        if same_major and len(click_version) > 1 and len(install_version) > 1:
            factors["os_minor"] = (OS_MINOR_MATCH if click_version[1] == install_version[1]
                                   else OS_MINOR_MISMATCH)
    if click.device_model and install.device_model:
        factors["device_model"] = _model_points(click.device_model, install.device_model)
    click_language, install_language = (language_tag(click.accept_language),
                                        language_tag(install.language))
    if click_language and install_language:
        if click_language == install_language:
            factors["language"] = LANGUAGE_EXACT
        elif click_language.split("-")[0] == install_language.split("-")[0]:
            factors["language"] = LANGUAGE_PRIMARY
        else:
            factors["language"] = LANGUAGE_MISMATCH

    raw = sum(factors.values())
    return Score(round(min(float(raw), MAX_CONFIDENCE) * decay(age), 2), raw, factors)


def decay(age: timedelta) -> float:
    """The share of a score left after `age`: 1 for an hour, then down to 60/80 at 23 hours."""
    hours = max(age.total_seconds(), 0) / 3600
    if hours <= FRESH_HOURS:
        return 1.0
    per_hour = (1 - THRESHOLD / MAX_CONFIDENCE) / (STALE_HOURS - FRESH_HOURS)
    return max(0.0, 1 - per_hour * (hours - FRESH_HOURS))


def _model_points(click_model: str, install_model: str) -> int:
    click_model, install_model = click_model.lower(), install_model.lower()
    if click_model in ("iphone", "ipad", "ipod"):  # Safari reveals only the device class
        return MODEL_CLASS_MATCH if install_model.startswith(click_model) else MODEL_MISMATCH
    return MODEL_MATCH if click_model == install_model else MODEL_MISMATCH


@dataclass(frozen=True)
class Scored:
    click: ClickCandidate
    score: Score
    crowd_penalty: float = 0.0
    ambiguity_penalty: float = 0.0

    @property
    def penalty(self) -> float:
        return self.crowd_penalty + self.ambiguity_penalty

    @cached_property  # read many times over while ranking and writing the trail
    def confidence(self) -> float:
        return max(0.0, round(self.score.confidence - self.penalty, 2))


def rank(candidates: Sequence[ClickCandidate], install: InstallSignals, *,
         installed_at: datetime) -> list[Scored]:
    """Every candidate scored, with the crowd and ambiguity penalties applied.

    Crowd: an address that many devices of the install's OS clicked from (carrier NAT, office,
    campus) says little about which of them installed, so each such other device takes points
    off the clicks from it. Devices of another OS cannot be mistaken for the installer and do
    not count. Ambiguity: when other devices score within a margin of the best, every close
    device is penalised, and with more than MAX_RIVALS the match is refused. Clicks from one
    browser on one address (same fingerprint) are one device and never count against each
    other.
    """
    look_alikes: dict[str, set[str]] = {}
    for click in candidates:
        if not click.os_family or not install.os_family or click.os_family == install.os_family:
            look_alikes.setdefault(click.ip or "", set()).add(_device(click))
    scored = []
    for click in candidates:
        crowd = max(0, len(look_alikes.get(click.ip or "", ())) - 1)
        scored.append(Scored(click, score(click, install, age=installed_at - click.clicked_at),
                             crowd_penalty=min(MAX_CROWD_PENALTY,
                                               CROWD_PENALTY_PER_DEVICE * crowd)))
    best_by_device: dict[str, float] = {}
    for item in scored:
        device = _device(item.click)
        best_by_device[device] = max(best_by_device.get(device, 0.0), item.confidence)
    if not best_by_device:
        return scored
    top = max(best_by_device.values())
    if top < THRESHOLD:
        return scored
    rivals = {d for d, best in best_by_device.items() if best >= top - AMBIGUITY_MARGIN}
    rival_count = len(rivals) - 1
    if rival_count <= 0:
        return scored
    extra = MAX_CONFIDENCE if rival_count > MAX_RIVALS else AMBIGUITY_PENALTY * rival_count
    return [Scored(item.click, item.score, item.crowd_penalty, extra)
            if _device(item.click) in rivals else item for item in scored]


def _device(click: ClickCandidate) -> str:
    return click.fingerprint or str(click.id)
