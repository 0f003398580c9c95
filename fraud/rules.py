"""The request-path fraud rules (docs/fraud.md, "Rules"). Pure: no ORM, no clock; they read the
candidate clicks the waterfall already fetched, what the install request says, and the app's
settings, and say which clicks may not win and what the install's verdict is.

Click rules (each refuses a click in block mode, marks it in flag mode):
- engagement_injection: a click recorded after the install began (Play's install-begin time);
- ctit_anomalies: click-to-install time (to the install's first launch) below the floor;
- too_many_engagements: a device's clicks for one source in an hour holding more than the
  limit (the device: its advertising id, else its IP + User-Agent fingerprint);
- click_flood: a click of a source beat found flooding the app's clicks today.
Install rules: anonymous_traffic (the install's address is in a listed network or the
anonymous-IP database) and incorrect_signature in report mode (the caller measures both).

The waterfall then runs on the eligible clicks (tracking's fraud gate). `install_verdict`
decides: blocked when a block-mode install rule matched, or when the click that would have won
was refused and no eligible click took its place (the install is not credited: organic answer);
flagged when the install is credited but a flag-mode rule touched the winner or the install, or
when a refused click lost to an earlier eligible one (credited to that one, the refusal on
record); else clean. A test device's block becomes a flag: it is never blocked.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from fraud import verdict as v

HOUR = timedelta(hours=1)


class Click(Protocol):
    """What the rules read of a candidate click (tracking's ClickCandidate has these)."""

    id: uuid.UUID
    clicked_at: datetime
    media_source: str
    advertising_id: str | None
    fingerprint: str


class RuleSettings(Protocol):
    engagement_injection_mode: str
    ctit_anomalies_mode: str
    ctit_floor_seconds: int
    too_many_engagements_mode: str
    too_many_engagements_per_hour: int
    click_flood_mode: str


@dataclass(frozen=True)
class Finding:
    """A rule that matched, in its mode (flag or block)."""

    mode: str
    reason: v.Reason


@dataclass(frozen=True)
class ClickScreen:
    """Per click id, the findings of the rules that matched it, strongest first."""

    findings: dict[uuid.UUID, tuple[Finding, ...]] = field(default_factory=dict)

    def refused(self, click_id: uuid.UUID | None) -> bool:
        return click_id is not None and any(
            f.mode == v.BLOCK for f in self.findings.get(click_id, ()))

    def eligible(self, clicks: Iterable[Click]) -> list:
        return [click for click in clicks if not self.refused(click.id)]

    def of(self, click_id: uuid.UUID | None) -> tuple[Finding, ...]:
        return self.findings.get(click_id, ()) if click_id is not None else ()


def seconds(delta: timedelta) -> int:
    """Whole seconds, rounded down toward zero (what the trail and the value show)."""
    return int(delta.total_seconds())


def screen_clicks(clicks: Sequence[Click], *, installed_at: datetime,
                  install_begin_at: datetime | None, settings: RuleSettings,
                  flooding: frozenset[str], test_device: bool = False) -> ClickScreen:
    """The findings of the click rules on each candidate (duplicates read once)."""
    unique = list({click.id: click for click in clicks}.values())
    counts = engagement_counts(unique)
    findings: dict[uuid.UUID, tuple[Finding, ...]] = {}
    for click in unique:
        found = [f for f in (
            _injection(click, install_begin_at, settings.engagement_injection_mode),
            _ctit(click, installed_at, settings.ctit_anomalies_mode,
                  settings.ctit_floor_seconds),
            _engagements(counts[click.id], settings.too_many_engagements_mode,
                         settings.too_many_engagements_per_hour),
            _flood(click, flooding, settings.click_flood_mode),
        ) if f is not None]
        if test_device:
            found = [Finding(v.FLAG, f.reason) for f in found]
        if found:
            findings[click.id] = tuple(sorted(found, key=lambda f: f.mode != v.BLOCK))
    return ClickScreen(findings)


def engagement_counts(clicks: Sequence[Click]) -> dict[uuid.UUID, int]:
    """Per click, the most clicks of its device for its source in any hour that holds it:
    once a device passes the limit, every click of that burst is out, the first ones too
    (a click spammer's first click is no more honest than its tenth). The device is its
    advertising id, else its IP + User-Agent fingerprint; a click with neither is alone."""
    by_key: dict[tuple, list[Click]] = defaultdict(list)
    for click in clicks:
        device = (("id", click.advertising_id) if click.advertising_id
                  else ("fp", click.fingerprint) if click.fingerprint else ("click", click.id))
        by_key[(device, click.media_source)].append(click)
    counts: dict[uuid.UUID, int] = {}
    for group in by_key.values():
        group.sort(key=lambda c: c.clicked_at)
        for click in group:
            counts[click.id] = 1
        end = 0
        for start, first in enumerate(group):  # each hour that starts at a click
            while end < len(group) and group[end].clicked_at < first.clicked_at + HOUR:
                end += 1
            for held in group[start:end]:
                counts[held.id] = max(counts[held.id], end - start)
    return counts


def _injection(click: Click, install_begin_at: datetime | None, mode: str) -> Finding | None:
    if mode == v.OFF or install_begin_at is None or click.clicked_at <= install_begin_at:
        return None
    return Finding(mode, v.Reason(v.ENGAGEMENT_INJECTION,
                                 seconds(click.clicked_at - install_begin_at)))


def _ctit(click: Click, installed_at: datetime, mode: str, floor: int) -> Finding | None:
    ctit = installed_at - click.clicked_at
    if mode == v.OFF or ctit >= timedelta(seconds=floor):
        return None
    return Finding(mode, v.Reason(v.CTIT_ANOMALIES, seconds(ctit)))


def _engagements(count: int, mode: str, limit: int) -> Finding | None:
    if mode == v.OFF or count <= limit:
        return None
    return Finding(mode, v.Reason(v.TOO_MANY_ENGAGEMENTS, count))


def _flood(click: Click, flooding: frozenset[str], mode: str) -> Finding | None:
    if mode == v.OFF or not click.media_source or click.media_source not in flooding:
        return None
    return Finding(mode, v.Reason(v.CLICK_FLOOD, None, click.media_source))


@dataclass(frozen=True)
class InstallVerdict:
    """The verdict, and the click whose claim was refused (the network that gets no postback,
    or a rejected-install postback), when one would have won."""

    verdict: v.Verdict
    refused_click_id: uuid.UUID | None = None


def install_verdict(*, screen: ClickScreen, winner_id: uuid.UUID | None, credited: bool,
                    unscreened_winner_id: uuid.UUID | None,
                    install_findings: Sequence[Finding] = (),
                    test_device: bool = False) -> InstallVerdict:
    """The install's verdict from the click screen, the waterfall's answer among the eligible
    clicks (`winner_id`, and whether it `credited` a source at all: a referrer may name one
    without a click), the click that would have won without the screen
    (`unscreened_winner_id`) and the install rules' findings."""
    if test_device:
        install_findings = [Finding(v.FLAG, f.reason) for f in install_findings]
    refused_id = unscreened_winner_id if screen.refused(unscreened_winner_id) else None
    reasons: list[v.Reason] = [f.reason for f in screen.of(refused_id)]
    reasons += [f.reason for f in screen.of(winner_id) if f.reason not in reasons]
    reasons += [f.reason for f in install_findings]
    if any(f.mode == v.BLOCK for f in install_findings):
        return InstallVerdict(v.Verdict(v.BLOCKED, tuple(reasons)), refused_id or winner_id)
    if refused_id is not None and not credited:
        return InstallVerdict(v.Verdict(v.BLOCKED, tuple(reasons)), refused_id)
    if reasons:
        return InstallVerdict(v.Verdict(v.FLAGGED, tuple(reasons)), refused_id)
    return InstallVerdict(v.CLEAN_VERDICT)
