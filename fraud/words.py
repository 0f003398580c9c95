"""Each fraud reason in plain words (docs/fraud.md, "Reason codes"), for the decision trail,
the console and the API's readers. Pure. A value or sub-reason may come from a network (a media
source): callers show the words as text."""

from __future__ import annotations

from fraud import signing
from fraud import verdict as v

SIGNATURE_WORDS = {
    signing.MISSING: "the request was not signed",
    signing.MALFORMED: "the request's signature headers were malformed",
    signing.WRONG: "the request's signature did not match",
    signing.EXPIRED: "the request's signature timestamp was too old",
}


def reason_words(reason: v.Reason, *, ctit_floor: int | None = None,
                 engagement_limit: int | None = None) -> str:
    """One reason as a sentence fragment: "click 3 s before install: below the 10 s floor"."""
    value = reason.value
    if reason.reason == v.CTIT_ANOMALIES:
        floor = f"the {ctit_floor} s floor" if ctit_floor is not None else "the floor"
        return f"click {value} s before install: below {floor} (install hijacking)"
    if reason.reason == v.ENGAGEMENT_INJECTION:
        return (f"click {value} s after the install began (Play's install-begin time): "
                "click injection")
    if reason.reason == v.TOO_MANY_ENGAGEMENTS:
        limit = f" (limit {engagement_limit})" if engagement_limit is not None else ""
        if reason.sub_reason == v.AT_LEAST:
            return (f"at least {value} clicks from this device for this source within an "
                    f"hour{limit}, among the device's latest clicks the decision reads")
        return f"{value} clicks from this device for this source within an hour{limit}"
    if reason.reason == v.CLICK_FLOOD:
        return f"source {reason.sub_reason} was found flooding clicks that day"
    if reason.reason == v.ANONYMOUS_TRAFFIC:
        if reason.sub_reason == "listed_network":
            return "the install came from a listed network"
        flag = reason.sub_reason.removeprefix("is_").replace("_", " ")
        return f"the install came from an anonymous network ({flag})"
    if reason.reason == v.INCORRECT_SIGNATURE:
        return SIGNATURE_WORDS.get(reason.sub_reason, "the request's signature was wrong")
    if reason.reason == v.BOTS:
        return "the click came from a known bot or crawler"
    return f"{reason.reason} ({value})" if value is not None else reason.reason


STATUS_WORDS = {
    v.CLEAN: "No fraud rule matched.",
    v.FLAGGED: "Flagged: credited, and marked for review.",
    v.BLOCKED: "Blocked: not credited to any source (the app was answered organic).",
    v.POST_ATTRIBUTION: "Found fraudulent after attribution: its credit stands, the install "
                        "is left out of the paid counts.",
}


# What each reason catches, as the install list and the fraud pages name it.
REASON_NAMES = {
    v.ENGAGEMENT_INJECTION: "click injection",
    v.CTIT_ANOMALIES: "install hijacking",
    v.TOO_MANY_ENGAGEMENTS: "click spamming",
    v.CLICK_FLOOD: "click flooding",
    v.ANONYMOUS_TRAFFIC: "anonymous traffic",
    v.INCORRECT_SIGNATURE: "incorrect signature",
    v.BOTS: "bots",
}
STATUS_NAMES = {v.CLEAN: "Clean", v.FLAGGED: "Flagged", v.BLOCKED: "Blocked",
                v.POST_ATTRIBUTION: "Post-attribution"}


def reason_brief(reason: v.Reason) -> str:
    """One reason in a few words for a list: "click to install in 3 s (install hijacking)"."""
    value, name = reason.value, REASON_NAMES.get(reason.reason, reason.reason)
    if reason.reason == v.CTIT_ANOMALIES:
        return f"click to install in {value} s ({name})"
    if reason.reason == v.ENGAGEMENT_INJECTION:
        return f"click {value} s after the install began ({name})"
    if reason.reason == v.TOO_MANY_ENGAGEMENTS:
        at_least = "at least " if reason.sub_reason == v.AT_LEAST else ""
        return f"{at_least}{value} clicks from one device within an hour ({name})"
    if reason.reason == v.CLICK_FLOOD:
        return f"{reason.sub_reason or 'its source'} found flooding clicks ({name})"
    if reason.reason == v.ANONYMOUS_TRAFFIC:
        where = ("a listed network" if reason.sub_reason == "listed_network"
                 else reason.sub_reason.removeprefix("is_").replace("_", " ") or "unknown")
        return f"from {where} ({name})"
    if reason.reason == v.INCORRECT_SIGNATURE:
        return f"{SIGNATURE_WORDS.get(reason.sub_reason, 'wrong signature')} ({name})"
    if reason.reason == v.BOTS:
        return f"a known bot or crawler ({name})"
    return f"{reason.reason} ({value})" if value is not None else reason.reason


def verdict_brief(status: str, reasons: list) -> str:
    """An install's verdict for a list: "Blocked: click to install in 3 s (install
    hijacking)"; "" for a clean install. `reasons` as stored ([{reason, value, sub_reason}])."""
    if status == v.CLEAN:
        return ""
    briefs = [reason_brief(v.Reason.from_dict(r)) for r in reasons or ()
              if isinstance(r, dict) and "reason" in r]
    label = STATUS_NAMES.get(status, status)
    return f"{label}: {'; '.join(briefs)}" if briefs else label
