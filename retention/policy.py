"""Retention rules (docs/privacy.md, "Retention"). Pure: no ORM, no clock
(the time is passed in).

Each app keeps full IP addresses and fingerprints for `ip_retention_days` and its raw rows
(archived clicks, events) for `raw_retention_days`. Past the first limit an address is masked
to its /24 (IPv4) or /48 (IPv6) and the fingerprint dropped; past the second the rows go, whole
day partitions at a time where every app's limit has passed that day. The statements that apply
these rules live with the apps that own the tables (tracking/retention.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from apps_registry.app_fields import IP_RETENTION_DEFAULT_DAYS, RAW_RETENTION_DEFAULT_DAYS
from tracking import partitions

IPV4_PREFIX = 24
IPV6_PREFIX = 48
# An IPv4 address written as IPv6 (::ffff:a.b.c.d) keeps the IPv4 rule: its /24 is a /120.
IPV4_MAPPED_PREFIX = 96 + IPV4_PREFIX

# The readiness check's tolerance: enforcement may run up to this late before /readyz warns.
GRACE = timedelta(days=1)
STALE_RUN = timedelta(days=2)


@dataclass(frozen=True)
class Limits:
    """One app's limits, in days."""

    ip_days: int = IP_RETENTION_DEFAULT_DAYS
    raw_days: int = RAW_RETENTION_DEFAULT_DAYS


def ip_cutoff(*, now: datetime, limits: Limits) -> datetime:
    """Rows stamped before this carry a masked address and no fingerprint."""
    return now - timedelta(days=limits.ip_days)


def raw_cutoff(*, now: datetime, limits: Limits) -> datetime:
    """Archived clicks and events stamped before this are deleted."""
    return now - timedelta(days=limits.raw_days)


def common_cutoff(cutoffs: Iterable[datetime]) -> datetime | None:
    """The instant before which every app's limit has passed (the earliest cutoff); None
    without apps, when nothing may be treated as past every limit."""
    return min(cutoffs, default=None)


def cutoffs_by_app(*, now: datetime, limits: Mapping[Hashable, Limits],
                   raw: bool) -> dict[Hashable, datetime]:
    cutoff = raw_cutoff if raw else ip_cutoff
    return {app: cutoff(now=now, limits=app_limits) for app, app_limits in limits.items()}


def whole_periods(periods: Iterable[partitions.Period], *,
                  cutoff: datetime | None) -> list[partitions.Period]:
    """The partitions (days; the hot store's weeks) whose whole range lies before `cutoff`
    (the common cutoff: every app's limit has passed all of it), oldest first. One straddling
    it waits."""
    return partitions.droppable(periods, cutoff=cutoff) if cutoff is not None else []


def masked_ip(ip: str) -> str:
    """The address with its host part zeroed: /24 for IPv4, /48 for IPv6, the /24 of the
    IPv4 address inside an IPv4-mapped IPv6 one. Text that is no address comes back as ''."""
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return ""
    if address.version == 6 and address.ipv4_mapped is not None:  # written as PostgreSQL does
        return f"::ffff:{masked_ip(str(address.ipv4_mapped))}"
    prefix = IPV4_PREFIX if address.version == 4 else IPV6_PREFIX
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False).network_address)


def masked_network_key(ip_prefix: str, ip: str | None) -> str:
    """A click's network key (tracking.fingerprint.network_key: the /24 or /64 the waterfall
    compares) once its address is masked: an IPv6 /64 names more than the /48 kept, so it
    becomes that /48; an IPv4 /24 is kept as it is."""
    if not ip_prefix or not ip:
        return ip_prefix
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return ""
    if address.version == 4 or address.ipv4_mapped is not None:
        return ip_prefix
    return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))


def behind(*, cutoff: datetime, reached: datetime) -> bool:
    """Whether enforcement that has got to `reached` is late for `cutoff`: more than GRACE,
    so rows past a limit by more than a day may still be there."""
    return reached < cutoff - GRACE


def run_stale(*, now: datetime, last_finished: datetime | None,
              first_app_created: datetime | None) -> bool:
    """Whether the last finished run is too old: beat runs it hourly. Before any run, stale
    once the oldest app has existed longer than STALE_RUN (a new instance is not behind)."""
    if last_finished is not None:
        return now - last_finished > STALE_RUN
    return first_app_created is not None and now - first_app_created > STALE_RUN
