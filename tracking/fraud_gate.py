"""The fraud rules around the install waterfall (docs/fraud.md): the candidate clicks the
waterfall already read are screened (fraud/rules.py), the waterfall runs on the eligible ones,
and the install gets its verdict. A blocked install is answered and stored organic; the claim
that was refused is kept in the trail (`decision["fraud"]["refused"]`) for the fraud report
and a rejected-install postback.

Costs no query: the app's settings and its flooding sources come from the process's caches,
the anonymous-IP database is mapped once per process.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from fraud import networks, rules, words
from fraud import selectors as fraud_selectors
from fraud import verdict as fraud_verdict
from tracking import attribution
from tracking.referrer import ReferrerInfo
from tracking.sql import MAX_DEVICE_CANDIDATES
from tracking.waterfall_inputs import ClickCandidate, InstallSignals

MAX_TRAIL_FINDINGS = 25


@dataclass(frozen=True)
class PlaySignals:
    """What Google Play's Install Referrer API told the SDK, as sent with the install."""

    referrer_click_at: datetime | None = None
    install_begin_at: datetime | None = None
    install_version: str = ""


def play_signals(data: Mapping) -> PlaySignals:
    """From the validated install body: the server times when Play gave them (a device clock
    cannot move them), else the device's; 0 or null is absent."""

    def moment(*names: str) -> datetime | None:
        for name in names:
            if data.get(name):
                return datetime.fromtimestamp(data[name], tz=UTC)
        return None

    return PlaySignals(
        referrer_click_at=moment("referrer_click_timestamp_server_seconds",
                                 "referrer_click_timestamp_seconds"),
        install_begin_at=moment("install_begin_timestamp_server_seconds",
                                "install_begin_timestamp_seconds"),
        install_version=data.get("install_version") or "")


@dataclass(frozen=True)
class Gated:
    verdict: attribution.Verdict  # the credit: organic when the install is blocked
    fraud: fraud_verdict.Verdict
    refused: ClickCandidate | None = None  # the click whose claim was refused, if one was


def gated_attribution(*, app_id: uuid.UUID, installed_at: datetime, signals: InstallSignals,
                      referrer: ReferrerInfo | None, referrer_click: ClickCandidate | None,
                      device_candidates: Sequence[ClickCandidate],
                      fingerprint_candidates: Sequence[ClickCandidate],
                      ios_fingerprinting: str, play: PlaySignals,
                      signature_problem: str | None,
                      platform_referrers: Sequence[attribution.PlatformReferrer] = (),
                      view_window: timedelta = attribution.VIEW_WINDOW) -> Gated:
    settings = fraud_selectors.settings_of(app_id)
    test_device = signals.device_id is not None and signals.device_id in settings.test_devices
    flooding = (fraud_selectors.flooding_sources(app_id, installed_at.date())
                if settings.click_flood_mode != fraud_verdict.OFF else frozenset())
    clicks = [c for c in (referrer_click, *device_candidates, *fingerprint_candidates)
              if c is not None]
    screen = rules.screen_clicks(clicks, installed_at=installed_at,
                                 install_begin_at=play.install_begin_at, settings=settings,
                                 flooding=flooding, test_device=test_device)
    if len(device_candidates) >= MAX_DEVICE_CANDIDATES:
        screen = _counts_at_least(screen, device_candidates)

    def waterfall(keep) -> attribution.Verdict:
        return attribution.attribute(
            installed_at=installed_at, signals=signals, referrer=referrer,
            referrer_click=referrer_click if referrer_click is not None and keep(referrer_click)
            else None,
            device_candidates=[c for c in device_candidates if keep(c)],
            fingerprint_candidates=[c for c in fingerprint_candidates if keep(c)],
            ios_fingerprinting=ios_fingerprinting, platform_referrers=platform_referrers,
            view_window=view_window)

    refused_ids = {c.id for c in clicks if screen.refused(c.id)}
    unscreened = waterfall(lambda click: True)
    screened = (waterfall(lambda click: click.id not in refused_ids) if refused_ids
                else unscreened)
    findings = _install_findings(signals, settings, signature_problem)
    outcome = rules.install_verdict(
        screen=screen, winner_id=screened.click.id if screened.click else None,
        credited=not screened.is_organic,
        unscreened_winner_id=unscreened.click.id if unscreened.click else None,
        install_findings=findings, test_device=test_device)
    refused = next((c for c in clicks if c.id == outcome.refused_click_id), None)
    credit = screened
    if outcome.verdict.status == fraud_verdict.BLOCKED and not screened.is_organic:
        credit = attribution.Verdict(match_type=attribution.ORGANIC, confidence=0.0,
                                     trail=dict(screened.trail, method=attribution.ORGANIC))
        refused = refused or screened.click
    trail = dict(credit.trail)
    if refused_ids:
        by_tier = _refused_by_tier(refused_ids, installed_at=installed_at, signals=signals,
                                   referrer=referrer, referrer_click=referrer_click,
                                   device_candidates=device_candidates,
                                   fingerprint_candidates=fingerprint_candidates)
        trail["steps"] = [_step_with_refusals(step, by_tier) for step in trail.get("steps", [])]
    trail["candidates"] = [*trail.get("candidates", []),
                           *_refused_in_trail(clicks, screen, settings)]
    trail["fraud"] = _fraud_trail(outcome.verdict, refused, play, settings, screened,
                                  blocked_credit=credit is not screened,
                                  would_have_won=_tier_of(refused, unscreened, screened),
                                  refused_clicks=len(refused_ids))
    return Gated(verdict=replace(credit, trail=trail), fraud=outcome.verdict, refused=refused)


def _counts_at_least(screen: rules.ClickScreen,
                     device_candidates: Sequence[ClickCandidate]) -> rules.ClickScreen:
    """The device's lookup returned as many clicks as it returns at most: a burst counted
    among them may hold older clicks too, so its count is marked as a lower bound (the
    install's page counts the click records again: tracking.selectors)."""
    device = {click.id for click in device_candidates}
    return rules.ClickScreen({click_id: tuple(
        rules.Finding(f.mode, replace(f.reason, sub_reason=fraud_verdict.AT_LEAST))
        if click_id in device and f.reason.reason == fraud_verdict.TOO_MANY_ENGAGEMENTS else f
        for f in found) for click_id, found in screen.findings.items()})


# The outcome a tier records when it finds no eligible click, and what the trail says instead
# when the tier did find clicks and a fraud rule refused them all: "no click with this device
# id" above the device's refused click would send a reader looking for a missing click.
_EMPTY_OUTCOMES = {
    attribution.INSTALL_REFERRER: ("named click is unknown or outside the window",
                                   attribution.REFERRER_CLICK_REFUSED),
    attribution.DEVICE_ID: ("no click with this device id", attribution.DEVICE_CLICKS_REFUSED),
    attribution.FINGERPRINT: ("no click from this network", attribution.NETWORK_CLICKS_REFUSED),
}


def _refused_by_tier(refused_ids: set[uuid.UUID], *, installed_at: datetime,
                     signals: InstallSignals, referrer: ReferrerInfo | None,
                     referrer_click: ClickCandidate | None,
                     device_candidates: Sequence[ClickCandidate],
                     fingerprint_candidates: Sequence[ClickCandidate]
                     ) -> dict[str, list[ClickCandidate]]:
    """Per tier, the clicks it would have looked at that a rule refused, latest first."""
    since = installed_at - attribution.WINDOW
    looked_at = {
        attribution.INSTALL_REFERRER: [referrer_click] if referrer is not None
        and referrer_click is not None else [],
        attribution.DEVICE_ID: attribution.clicks_of_device(
            device_candidates, attribution.usable_device_id(signals.device_id),
            installed_at=installed_at),
        attribution.FINGERPRINT: [c for c in fingerprint_candidates
                                  if since <= c.clicked_at <= installed_at],
    }
    return {tier: sorted((c for c in clicks if c.id in refused_ids),
                         key=lambda c: (c.clicked_at, str(c.id)), reverse=True)
            for tier, clicks in looked_at.items()}


def _step_with_refusals(step: dict, by_tier: dict[str, list[ClickCandidate]]) -> dict:
    """The step with how many of its tier's clicks were refused and the latest of them (its
    reason is on that click's entry among the candidates); an outcome of "found nothing" says
    the clicks were refused instead."""
    refused = by_tier.get(step.get("method"), [])
    if not refused:
        return step
    step = {**step, "refused": {"clicks": len(refused), "latest_click_id": str(refused[0].id)}}
    empty, instead = _EMPTY_OUTCOMES[step["method"]]
    if step.get("outcome") == empty:
        step["outcome"] = instead
    return step


def _tier_of(refused: ClickCandidate | None, unscreened: attribution.Verdict,
             screened: attribution.Verdict) -> str | None:
    """The tier through which the refused claim would have been credited."""
    for verdict in (unscreened, screened):
        if refused is not None and verdict.click is not None and verdict.click.id == refused.id:
            return verdict.match_type
    return None


def _install_findings(signals: InstallSignals, settings: fraud_selectors.FraudSettings,
                      signature_problem: str | None) -> list[rules.Finding]:
    findings = []
    if settings.anonymous_traffic_mode != fraud_verdict.OFF:
        reason = networks.anonymous_reason(signals.ip, app_networks=settings.listed_networks)
        if reason is not None:
            findings.append(rules.Finding(settings.anonymous_traffic_mode, reason))
    if signature_problem is not None:  # report mode: enforce refused the request already
        findings.append(rules.Finding(fraud_verdict.FLAG, fraud_verdict.Reason(
            fraud_verdict.INCORRECT_SIGNATURE, None, signature_problem)))
    return findings


def _words(reason: fraud_verdict.Reason, settings: fraud_selectors.FraudSettings) -> str:
    return words.reason_words(reason, ctit_floor=settings.ctit_floor_seconds,
                              engagement_limit=settings.too_many_engagements_per_hour)


def _describe(click: ClickCandidate) -> dict:
    return {"click_id": str(click.id), "clicked_at": click.clicked_at.isoformat(),
            "media_source": click.media_source or None, "campaign_id": click.campaign_id or None}


def _refused_in_trail(clicks: Sequence[ClickCandidate], screen: rules.ClickScreen,
                      settings: fraud_selectors.FraudSettings) -> list[dict]:
    """The refused clicks as losing candidates, each with its first reason in plain words."""
    seen: set[uuid.UUID] = set()
    entries = []
    for click in clicks:
        if click.id in seen or not screen.refused(click.id):
            continue
        seen.add(click.id)
        first = screen.of(click.id)[0].reason
        entries.append({**_describe(click), "method": "fraud", **first.as_dict(),
                        "lost_because": f"not eligible: {_words(first, settings)}"})
    return entries[:MAX_TRAIL_FINDINGS]


def _fraud_trail(verdict: fraud_verdict.Verdict, refused: ClickCandidate | None,
                 play: PlaySignals, settings: fraud_selectors.FraudSettings,
                 screened: attribution.Verdict, *, blocked_credit: bool,
                 would_have_won: str | None, refused_clicks: int) -> dict:
    trail = {
        "status": verdict.status,
        "reasons": [dict(r.as_dict(), words=_words(r, settings)) for r in verdict.reasons],
        "refused": None if refused is None else {
            **_describe(refused), "adset": refused.adset or None, "ad": refused.ad or None,
            "method": would_have_won},
        "signals": {
            "install_begin_at": play.install_begin_at.isoformat() if play.install_begin_at
            else None,
            "referrer_click_at": play.referrer_click_at.isoformat() if play.referrer_click_at
            else None,
            "install_version": play.install_version or None},
    }
    if refused_clicks:  # all of them: the candidates list at most MAX_TRAIL_FINDINGS
        trail["refused_clicks"] = refused_clicks
    if blocked_credit:  # what the waterfall found before the block took the credit away
        trail["blocked_match"] = {"method": screened.match_type,
                                  "media_source": screened.media_source,
                                  "campaign_id": screened.campaign_id}
    return trail
