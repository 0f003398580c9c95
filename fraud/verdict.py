"""Fraud verdicts (docs/fraud.md): what the rules found about one install, as plain values.

Pure: the rules (fraud/rules.py) build these, tracking stores them on the install
(`fraud_status`, `fraud_reasons`), the API and the console show them, postbacks carry the first
reason as `{reject_reason}`. Reason codes are AppsFlyer's and Adjust's names, which the networks
already parse."""

from __future__ import annotations

from dataclasses import dataclass

# Reason codes.
ENGAGEMENT_INJECTION = "engagement_injection"
CTIT_ANOMALIES = "ctit_anomalies"
TOO_MANY_ENGAGEMENTS = "too_many_engagements"
CLICK_FLOOD = "click_flood"
ANONYMOUS_TRAFFIC = "anonymous_traffic"
INCORRECT_SIGNATURE = "incorrect_signature"
BOTS = "bots"
REASONS = (ENGAGEMENT_INJECTION, CTIT_ANOMALIES, TOO_MANY_ENGAGEMENTS, CLICK_FLOOD,
           ANONYMOUS_TRAFFIC, INCORRECT_SIGNATURE, BOTS)

# too_many_engagements' sub_reason when its count may be short: the clicks it counted are the
# device's latest ones the install's lookup returns, and that lookup was full (more may exist).
AT_LEAST = "at_least"

# A rule's mode, per app.
OFF = "off"
FLAG = "flag"
BLOCK = "block"
MODES = (OFF, FLAG, BLOCK)

# Request signing's own modes (it refuses a request rather than an install).
SIGNING_OFF = "off"
SIGNING_REPORT = "report"
SIGNING_ENFORCE = "enforce"
SIGNING_MODES = (SIGNING_OFF, SIGNING_REPORT, SIGNING_ENFORCE)

# An install's fraud status.
CLEAN = "clean"
FLAGGED = "flagged"
BLOCKED = "blocked"
POST_ATTRIBUTION = "post_attribution"
STATUSES = (CLEAN, FLAGGED, BLOCKED, POST_ATTRIBUTION)


@dataclass(frozen=True)
class Reason:
    """One rule's finding: its code, the measured value (seconds, a count) and a detail
    (`sub_reason`: which list or database matched, which signal was missing)."""

    reason: str
    value: float | int | None
    sub_reason: str = ""

    def as_dict(self) -> dict:
        return {"reason": self.reason, "value": self.value, "sub_reason": self.sub_reason}

    @classmethod
    def from_dict(cls, data: dict) -> Reason:
        return cls(reason=data["reason"], value=data.get("value"),
                   sub_reason=data.get("sub_reason", ""))


@dataclass(frozen=True)
class Verdict:
    status: str
    reasons: tuple[Reason, ...] = ()

    def as_dicts(self) -> list[dict]:
        return [reason.as_dict() for reason in self.reasons]


CLEAN_VERDICT = Verdict(status=CLEAN)
