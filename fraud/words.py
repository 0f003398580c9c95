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
