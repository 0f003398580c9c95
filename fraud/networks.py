"""The anonymous_traffic rule's lookups (docs/fraud.md, "anonymous_traffic"): is an address in a
network the operator lists (per app, or for every app: FRAUD_LISTED_NETWORKS), or one that a
MaxMind-format anonymous-IP database marks (VPN, Tor exit, hosting provider, public or
residential proxy)? Both are read once per process: the parsed networks per distinct list, the
database opened once (maxminddb maps the file and answers a lookup in microseconds).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

import maxminddb
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from fraud import verdict as v

# The GeoIP2 Anonymous IP database's flags, in the order a match names the first one.
ANONYMOUS_FLAGS = ("is_tor_exit_node", "is_anonymous_vpn", "is_public_proxy",
                   "is_residential_proxy", "is_hosting_provider", "is_anonymous")
LISTED = "listed_network"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=1024)
def parsed(networks: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(n, strict=False) for n in networks)


@lru_cache(maxsize=4)
def _reader(path: str) -> maxminddb.Reader:
    return maxminddb.open_database(path)


def check_configuration() -> None:
    """At start: the service-wide networks parse and the database opens, or the start fails."""
    try:
        parsed(tuple(settings.FRAUD_LISTED_NETWORKS))
    except ValueError as exc:
        raise ImproperlyConfigured(f"FRAUD_LISTED_NETWORKS: {exc}") from None
    if settings.FRAUD_ANONYMOUS_IP_DATABASE:
        try:
            _reader(settings.FRAUD_ANONYMOUS_IP_DATABASE)
        except (OSError, maxminddb.InvalidDatabaseError) as exc:
            raise ImproperlyConfigured(f"FRAUD_ANONYMOUS_IP_DATABASE: {exc}") from None


def anonymous_reason(ip: str | None, *, app_networks: tuple[str, ...]) -> v.Reason | None:
    """Why the address is anonymous traffic (the sub-reason: `listed_network` or the database's
    flag), or None."""
    if not ip:
        return None
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return None
    for network in (*parsed(app_networks), *parsed(tuple(settings.FRAUD_LISTED_NETWORKS))):
        if address.version == network.version and address in network:
            return v.Reason(v.ANONYMOUS_TRAFFIC, None, LISTED)
    if not settings.FRAUD_ANONYMOUS_IP_DATABASE:
        return None
    record = _reader(settings.FRAUD_ANONYMOUS_IP_DATABASE).get(str(address))
    if not isinstance(record, dict):
        return None
    for flag in ANONYMOUS_FLAGS:
        if record.get(flag) is True:
            return v.Reason(v.ANONYMOUS_TRAFFIC, None, flag)
    return None
