"""An app's fraud settings and the defaults an app gets before its owner touches them
(docs/fraud.md, "Defaults"). Pure: standard library only.

The defaults never change what the spec fixes: a click, then its install a second later from
the same device, is attributed (device id, confidence 100). So the rules that judge evidence
every spec call carries (the click-to-install time, a device's clicks per hour) only flag by
default: the install is credited as the spec says, flagged with the reason and counted in the
fraud report, and an owner who sees hijacking switches the rule to block. Rules that act only
on evidence the spec's calls never carry block by default: Play's install-begin time
(engagement_injection), beat's finding that a source floods (click_flood) and a crawler's
User-Agent (bots). Rules that can hurt real users (anonymous networks: VPNs) and request
signing (the SDK must be built for it) are off.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fraud import verdict


@dataclass(frozen=True)
class FraudSettings:
    engagement_injection_mode: str = verdict.BLOCK
    ctit_anomalies_mode: str = verdict.FLAG
    ctit_floor_seconds: int = 10
    too_many_engagements_mode: str = verdict.FLAG
    too_many_engagements_per_hour: int = 5
    click_flood_mode: str = verdict.BLOCK
    anonymous_traffic_mode: str = verdict.OFF
    listed_networks: tuple[str, ...] = ()
    bots_mode: str = verdict.BLOCK
    test_devices: frozenset[str] = field(default_factory=frozenset)
    signing_mode: str = verdict.SIGNING_OFF


FIELDS = tuple(FraudSettings.__dataclass_fields__)
DEFAULTS = FraudSettings()
