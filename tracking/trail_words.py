"""An install's decision trail in plain words (docs/console.md, "Install explorer"): the
result in one sentence, what each tier of the waterfall found, the evidence of the match, and
every click that lost and why. Pure: no ORM, no clock; the install's time is passed in.

It reads the `decision` dict `tracking.attribution` stores on an install (docs/attribution.md,
"The decision trail") in every shape stored so far: the current one; the first one (losing
clicks without their tier, a fingerprint match with a single `ambiguity_penalty`); and an empty
dict. What it does not recognise it repeats as stored rather than guess. Times are UTC, HH:MM,
with the date when it is not the install's day. Every string it returns may hold what an ad
network sent (a media source, a campaign): the page shows them as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime

from fraud.verdict import BLOCKED, CLEAN, FLAGGED, TOO_MANY_ENGAGEMENTS
from fraud.words import STATUS_WORDS
from tracking import fingerprint
from tracking.attribution import (
    ADDRESS_NEVER_COMPARED,
    DEVICE_CLICKS_REFUSED,
    DEVICE_ID,
    FINGERPRINT,
    FINGERPRINT_SKIPPED,
    INSTALL_REFERRER,
    MAX_TRAIL_CANDIDATES,
    NETWORK_CLICKS_REFUSED,
    ORGANIC,
    PLATFORM_NAMES,
    PLATFORM_READ,
    PLATFORM_REFERRER,
    REFERRER_CLICK_REFUSED,
    VIEW_THROUGH,
)
from tracking.reattribution import GOOGLE_ADS

TIERS = (INSTALL_REFERRER, DEVICE_ID, FINGERPRINT)
TIER_NAMES = {INSTALL_REFERRER: "Install referrer", DEVICE_ID: "Device id",
              FINGERPRINT: "Fingerprint", ORGANIC: "Organic", GOOGLE_ADS: "Google Ads",
              PLATFORM_REFERRER: "Platform referrer", VIEW_THROUGH: "View-through",
              "fraud": "Fraud rules"}
BY_TIER = {INSTALL_REFERRER: "install referrer", DEVICE_ID: "device id",
           FINGERPRINT: "fingerprint"}
NO_TRAIL = "No decision trail was stored with this install."

# The trail's outcomes (tracking/attribution.py) that read the same in a sentence of their own.
STEP_SENTENCES = {
    (INSTALL_REFERRER, "no usable referrer"):
        "The install sent no referrer naming a click or a source.",
    (INSTALL_REFERRER, "named click is unknown or outside the window"):
        "The referrer named a click of ours that is unknown or outside the window: passed over.",
    (DEVICE_ID, "no usable device id"):
        "The install sent no usable device id (none, or zeroed by limit-ad-tracking).",
    (DEVICE_ID, "no click with this device id"): "No click with this device id in the window.",
    (FINGERPRINT, "no click from this network"): "No click from this install's network in the "
                                                 "window.",
    (FINGERPRINT, ADDRESS_NEVER_COMPARED):
        "The install came from a loopback, private or carrier-NAT address, which is never "
        "compared with clicks (many devices share such addresses; clicks from them are never "
        "compared either).",
}
# The same outcomes as a clause of the organic sentence; None leaves the tier out of it.
ORGANIC_CLAUSES = {
    (INSTALL_REFERRER, "no usable referrer"): None,
    (INSTALL_REFERRER, "named click is unknown or outside the window"):
        "the referrer's click is unknown or outside the window",
    (DEVICE_ID, "no usable device id"): "no usable device id",
    (DEVICE_ID, "no click with this device id"): "no click with this device id",
    (FINGERPRINT, "no click from this network"): "fingerprint: no click from this network",
    (FINGERPRINT, ADDRESS_NEVER_COMPARED):
        "fingerprint: the install's loopback, private or carrier-NAT address is never compared",
    (FINGERPRINT, FINGERPRINT_SKIPPED): FINGERPRINT_SKIPPED,
    (INSTALL_REFERRER, REFERRER_CLICK_REFUSED): "the referrer's click was refused by a fraud rule",
    (DEVICE_ID, DEVICE_CLICKS_REFUSED): "this device's clicks were refused by fraud rules",
    (FINGERPRINT, NETWORK_CLICKS_REFUSED):
        "fingerprint: this network's clicks were refused by fraud rules",
}
# Which clicks a tier looks at, as a refusal names them ("found 3 clicks with this device id").
TIER_CLICKS = {INSTALL_REFERRER: "that the install referrer named",
               DEVICE_ID: "with this device id", FINGERPRINT: "from this install's network"}
FRAUD_METHOD = "fraud"  # the tier the fraud gate gives the clicks it refused
NOT_ELIGIBLE = "not eligible: "
# Why an iOS install was not tracking-authorized, by the App Tracking Transparency status the
# SDK sent (None: it sent none, and no IDFA either).
ATT_WORDS = {
    "denied": "the user denied tracking",
    "restricted": "tracking is restricted on this device",
    "not_determined": "the user had not been asked to allow tracking yet",
    None: "the SDK sent no tracking status and no IDFA",
}
LOST_REASONS = {
    "device id matched first": "the device id matched another click first",
    "install referrer named another click": "the install referrer named another click",
    "install referrer named the source": "the install referrer named a source instead",
    **{f"{name} install referrer named the click":
       f"{name}'s install referrer named its own ad's click" for name in PLATFORM_NAMES.values()},
}
PLATFORM_ORIGINS = {"play_referrer": "in the Play install referrer",
                    "meta_install_referrer": "in Meta's own install referrer"}


@dataclass(frozen=True)
class Step:
    tier: str
    sentence: str


@dataclass(frozen=True)
class LostClick:
    clicked_at: str
    source: str
    tier: str  # "" in first-version trails, which did not say
    reason: str
    score: str  # "" when the click was not scored
    evidence: str  # the fingerprint comparison in words, "" otherwise


@dataclass(frozen=True)
class DeviceClicks:
    """The install's device's clicks of its window as the click records hold them, counted
    when its page is read (tracking.selectors.device_clicks_of_window): the decision reads
    only a device's `read` latest clicks, so a flood's size is counted here instead."""

    total: int  # the device's clicks in the window (at least this many when not `complete`)
    complete: bool
    read: int  # how many of a device's latest clicks the decision reads
    bursts: Mapping[str, int]  # click id -> its device's clicks for its source in the hour


@dataclass(frozen=True)
class TrailWords:
    summary: str
    steps: tuple[Step, ...]
    evidence: tuple[str, ...]  # why the match is sure: its factors and penalties
    lost: tuple[LostClick, ...]
    window: str  # "" when the trail does not say
    capped: bool  # the trail keeps only the first MAX_TRAIL_CANDIDATES losing clicks
    fraud: tuple[str, ...] = ()  # the fraud rules' verdict and each reason (docs/fraud.md)
    counts: tuple[str, ...] = ()  # how many clicks there were where the lists show fewer


def trail_in_words(decision: Mapping | None, *, installed_at: datetime,
                   device_clicks: DeviceClicks | None = None) -> TrailWords:
    """The stored trail read aloud; `installed_at` decides which times need their date;
    `device_clicks`, when counted, gives the true size of a burst the decision saw part of."""
    if not decision:
        return TrailWords(NO_TRAIL, (), (), (), "", False)
    day = _utc(installed_at).date()
    bursts = device_clicks.bursts if device_clicks is not None else {}
    losers = [_recounted(c, bursts) for c in decision.get("candidates") or ()
              if isinstance(c, Mapping)]
    return TrailWords(
        summary=_summary(decision, losers, day),
        steps=tuple(_steps(decision, losers, day)),
        evidence=tuple(_evidence(decision)),
        lost=tuple(_lost(c, day) for c in _first_loss_of_each_click(losers)),
        window=_window(decision.get("window_start")),
        capped=sum(c.get("method") != FRAUD_METHOD for c in losers) >= MAX_TRAIL_CANDIDATES,
        fraud=tuple(_fraud(decision, day, bursts)),
        counts=tuple(_counts(decision, losers, device_clicks)),
    )


def clicks_listed(decision: Mapping | None) -> int:
    """How many clicks the trail names (the winner and the losers, each once): from the
    most a device's lookup returns up, the page counts the device's clicks again."""
    if not decision:
        return 0
    ids = {c.get("click_id") for c in decision.get("candidates") or () if isinstance(c, Mapping)}
    click = decision.get("click")
    if isinstance(click, Mapping):
        ids.add(click.get("click_id"))
    return len(ids - {None})


def _fraud(decision: Mapping, day: date, bursts: Mapping[str, int]) -> list[str]:
    """The verdict, then each reason as the rules worded it when they decided (with the
    thresholds of that moment), then whose claim was refused. Nothing for a trail from
    before the fraud rules, or a clean one."""
    fraud = decision.get("fraud")
    if not isinstance(fraud, Mapping) or fraud.get("status") in (None, CLEAN):
        return []
    lines = [STATUS_WORDS.get(fraud["status"], str(fraud["status"]))]
    judged = _judged_click(decision)
    for reason in fraud.get("reasons") or ():
        if isinstance(reason, Mapping):
            lines.append(_capital(_reason_words(reason, judged, bursts)) + ".")
    refused = fraud.get("refused")
    if isinstance(refused, Mapping):
        lines.append(f"Refused: the claim of {_click_phrase(refused, day)}.")
    return lines


def _judged_click(decision: Mapping) -> str | None:
    """The click the verdict's click reasons are about: the refused claim, else the winner."""
    fraud = decision.get("fraud") if isinstance(decision.get("fraud"), Mapping) else {}
    for click in (fraud.get("refused"), decision.get("click")):
        if isinstance(click, Mapping):
            return click.get("click_id")
    return None


def _reason_words(reason: Mapping, click_id: str | None, bursts: Mapping[str, int]) -> str:
    """A reason as the rules worded it; a burst counted again from the click records, when
    the decision saw only part of it, with its true size."""
    words = str(reason.get("words") or reason.get("reason", ""))
    if reason.get("reason") != TOO_MANY_ENGAGEMENTS or click_id not in bursts:
        return words
    return _burst_words(bursts[click_id], reason.get("value"), words)


def _recounted(click: Mapping, bursts: Mapping[str, int]) -> Mapping:
    """A click refused as one of too many of its device's, with its burst's true size when
    the click records were counted again."""
    if (click.get("method") != FRAUD_METHOD or click.get("reason") != TOO_MANY_ENGAGEMENTS
            or click.get("click_id") not in bursts):
        return click
    words = str(click.get("lost_because", "")).removeprefix(NOT_ELIGIBLE)
    return {**click, "lost_because": NOT_ELIGIBLE + _burst_words(
        bursts[click["click_id"]], click.get("value"), words)}


def _burst_words(true_count: int, seen, words: str) -> str:
    if not isinstance(seen, int) or true_count <= seen:
        return words
    return (f"{true_count} clicks from this device for this source within an hour in the "
            f"click records (the decision read {seen} of them)")


def _counts(decision: Mapping, losers: list[Mapping], device_clicks: DeviceClicks | None
            ) -> list[str]:
    """Where a list shows fewer clicks than there were, how many there were."""
    lines = []
    if device_clicks is not None and device_clicks.total > device_clicks.read:
        total = (f"{device_clicks.total}" if device_clicks.complete
                 else f"more than {device_clicks.total}")
        lines.append(f"This device has {total} clicks in the window in the click records; the "
                     f"decision read its {device_clicks.read} most recent, as it reads every "
                     "device's, and those are the ones shown.")
    fraud = decision.get("fraud") if isinstance(decision.get("fraud"), Mapping) else {}
    refused = fraud.get("refused_clicks")
    listed = len({c.get("click_id") for c in losers if c.get("method") == FRAUD_METHOD})
    if isinstance(refused, int) and refused > listed:
        lines.append(f"Fraud rules refused {refused} of the clicks read; the trail lists "
                     f"{listed} of them.")
    return lines


def trail_summary(decision: Mapping | None, *, installed_at: datetime) -> tuple[str, int]:
    """The result's sentence alone and how many losing clicks the trail holds: what a raw-data
    file carries per install, without the cost of the whole trail."""
    if not decision:
        return NO_TRAIL, 0
    losers = [c for c in decision.get("candidates") or () if isinstance(c, Mapping)]
    return _summary(decision, losers, _utc(installed_at).date()), len(losers)


def _first_loss_of_each_click(losers: list[Mapping]) -> list[Mapping]:
    """A click of the device is also a click of its network, so a device match records it
    twice (lost to a later click of the device, then beaten by the match); the first tier's
    reason is the one that decided."""
    seen: set[str] = set()
    first = []
    for click in losers:
        click_id = click.get("click_id")
        if click_id is None or click_id not in seen:
            first.append(click)
            seen.add(click_id)
    return first


# --- The result -----------------------------------------------------------------------------

def _summary(decision: Mapping, losers: list[Mapping], day: date) -> str:
    """The result, and for an install the fraud rules touched what they did to it: which
    claim they refused and why, and what happened instead."""
    result = _result(decision, losers, day)
    fraud = decision.get("fraud")
    if not isinstance(fraud, Mapping) or fraud.get("status") not in (BLOCKED, FLAGGED):
        return result
    refused = fraud.get("refused") if isinstance(fraud.get("refused"), Mapping) else None
    entry = _refused_entry(losers, refused.get("click_id")) if refused else None
    if fraud["status"] == BLOCKED:
        if entry is not None:
            return (f"Blocked: {_found_and_refused(refused, entry, day)}; no other click "
                    "qualified, so the install was credited to no one (answered organic).")
        return f"Blocked: {_install_reasons(fraud)}; {_not_credited(fraud, refused, day)}"
    if entry is not None:
        return (f"{result} Credited and flagged: {_found_and_refused(refused, entry, day)}, and "
                "the click above was credited instead.")
    flagged = "Flagged" if decision.get("method") == ORGANIC else "Credited and flagged"
    return f"{result} {flagged}: {_install_reasons(fraud)}."


def _refused_entry(losers: list[Mapping], click_id) -> Mapping | None:
    """The refused click's entry among the losers (its reason in words), if listed."""
    return next((c for c in losers if c.get("method") == FRAUD_METHOD
                 and c.get("click_id") == click_id), None)


def _found_and_refused(click: Mapping, entry: Mapping, day: date) -> str:
    """'found the click of 02:19 from hijacker / summer with this device id and refused it
    (click 3 s before install: below the 10 s floor (install hijacking))'"""
    tier = TIER_CLICKS.get(click.get("method"))
    return (f"found {_click_phrase(click, day)}{' ' + tier if tier else ''} and refused it "
            f"({_refusal(entry)})")


def _refusal(entry: Mapping) -> str:
    return str(entry.get("lost_because", "")).removeprefix(NOT_ELIGIBLE)


def _install_reasons(fraud: Mapping) -> str:
    words = [str(r.get("words") or r.get("reason", "")) for r in fraud.get("reasons") or ()
             if isinstance(r, Mapping)]
    return "; ".join(words) or "a fraud rule matched"


def _not_credited(fraud: Mapping, refused: Mapping | None, day: date) -> str:
    """What an install rule's block took away: the match the waterfall had found."""
    if refused is not None:
        tier = BY_TIER.get(refused.get("method"), "")
        return (f"its match{' by ' + tier if tier else ''} with {_click_phrase(refused, day)} "
                "was not credited: the install was credited to no one (answered organic).")
    match = fraud.get("blocked_match")
    if isinstance(match, Mapping) and match.get("media_source"):
        return (f"its match with {_source(match)} was not credited: the install was credited "
                "to no one (answered organic).")
    return "the install was credited to no one (answered organic)."


def _result(decision: Mapping, losers: list[Mapping], day: date) -> str:
    method = decision.get("method")
    click = decision.get("click")
    if method == ORGANIC:
        clauses = [clause for step in _recorded_steps(decision)
                   if (clause := _organic_clause(step, losers)) is not None]
        return f"Organic: {'; '.join(clauses) or 'no click matched'}."
    if method in BY_TIER and isinstance(click, Mapping):
        sentence = f"Matched {_click_phrase(click, day)} by {BY_TIER[method]}"
        if method == FINGERPRINT:
            sentence += f", score {_number(decision.get('score'))}"
        return sentence + "."
    platform = _platform_factors(decision)
    if platform is not None:
        return _platform_summary(platform)
    if method == INSTALL_REFERRER:
        return (f"Matched {_named_source(decision)} by install referrer: it named the source, "
                "not a click of ours, so the time of the touch is unknown.")
    if method == GOOGLE_ADS:
        before = decision.get("reattributed_from")
        was = before.get("method") if isinstance(before, Mapping) else None
        return ("Re-attributed to Google Ads on Google's claim after the install (its App "
                f"Conversion API){'; the waterfall had said ' + str(was) if was else ''}.")
    if method:
        return f"Result: {method}."
    return NO_TRAIL


def _platform_factors(decision: Mapping) -> Mapping | None:
    factors = decision.get("factors")
    if isinstance(factors, Mapping) and "platform_referrer" in factors:
        return factors
    return None


def _platform_summary(factors: Mapping) -> str:
    """'Matched meta / 654321 by Meta's install referrer (decrypted), click-through, in the
    Play install referrer.'"""
    source = factors.get("media_source")
    name = PLATFORM_NAMES.get(source, str(source))
    touch = "view-through" if factors.get("touch") == "view" else "click-through"
    where = PLATFORM_ORIGINS.get(factors.get("platform_referrer"), "")
    campaign = f"{source} / {factors['campaign_id']}" if factors.get("campaign_id") else source
    owner = f"{name}'" if name.endswith("s") else f"{name}'s"
    read = PLATFORM_READ.get(source, "")
    return (f"Matched {campaign} by {owner} install referrer{read}, {touch}"
            f"{', ' + where if where else ''}.")


def _organic_clause(step: Mapping, losers: list[Mapping]) -> str | None:
    key = (step.get("method"), step.get("outcome"))
    if key in ORGANIC_CLAUSES:
        return ORGANIC_CLAUSES[key]
    if key == (FINGERPRINT, "no click scored 60 or more"):
        return f"fingerprint: {_fingerprint_scores(losers)}"
    return f"{TIER_NAMES.get(key[0], key[0])}: {key[1]}"


def _fingerprint_scores(losers: list[Mapping]) -> str:
    """'2 clicks from this network scored 41 and 38, below 60', then the clicks refused outright
    (another OS, an ambiguous network) by reason."""
    scored = [c for c in losers if _fingerprint_loser(c)]
    if not scored:
        return f"no click scored {_number(fingerprint.THRESHOLD)} or more"
    below = [c for c in scored if str(c.get("lost_because", "")).startswith("score ")]
    parts = []
    if below:
        scores = sorted((_float(c.get("confidence")) for c in below), reverse=True)
        parts.append(f"{_clicks(len(below))} from this network scored "
                     f"{_and(_number(s) for s in scores)}, below {_number(fingerprint.THRESHOLD)}")
    by_reason: dict[str, int] = {}
    for click in scored:
        reason = str(click.get("lost_because", ""))
        if not reason.startswith("score "):
            by_reason[reason] = by_reason.get(reason, 0) + 1
    more = "more" if below else ""
    parts += [f"{_clicks(count, more)} refused: {reason}" for reason, count in by_reason.items()]
    return "; ".join(parts)


def _fingerprint_loser(click: Mapping) -> bool:
    if "method" in click:
        return click["method"] == FINGERPRINT
    return "confidence" in click  # first-version trails: only the fingerprint tier scored


# --- Tier by tier ---------------------------------------------------------------------------

def _recorded_steps(decision: Mapping) -> list[Mapping]:
    return [s for s in decision.get("steps") or () if isinstance(s, Mapping)]


def _steps(decision: Mapping, losers: list[Mapping], day: date) -> list[Step]:
    recorded = _recorded_steps(decision)
    if not recorded:
        return []
    seen = {step.get("method") for step in recorded}
    steps = [Step(TIER_NAMES.get(step.get("method"), str(step.get("method"))),
                  _step_sentence(step, decision, losers, day)) for step in recorded]
    winner = decision.get("method")
    if winner in TIERS:
        steps += [Step(TIER_NAMES[tier], f"Not tried: the {BY_TIER[winner]} matched first.")
                  for tier in TIERS[TIERS.index(winner) + 1:] if tier not in seen]
    return steps


def _step_sentence(step: Mapping, decision: Mapping, losers: list[Mapping], day: date) -> str:
    """What the tier found; clicks of the tier a fraud rule refused are said with it, so no
    step reads as if the tier had found nothing when it found a click and refused it."""
    refused = step.get("refused") if isinstance(step.get("refused"), Mapping) else {}
    count = refused.get("clicks") if isinstance(refused.get("clicks"), int) else 0
    tier = TIER_CLICKS.get(step.get("method"), "")
    latest = _refused_entry(losers, refused.get("latest_click_id")) if count else None
    if step.get("outcome") in (REFERRER_CLICK_REFUSED, DEVICE_CLICKS_REFUSED,
                               NETWORK_CLICKS_REFUSED):
        if count <= 1 and latest is not None:
            return _capital(_found_and_refused({**latest, "method": step.get("method")},
                                               latest, day)) + "."
        if latest is not None:
            return (f"Found {_clicks(count)} {tier}, and fraud rules refused every one; the "
                    f"latest, {_of_time_from(latest, day)}: {_refusal(latest)}.")
        return f"Found {_clicks(count)} {tier}, and fraud rules refused every one."
    sentence = _plain_step_sentence(step, decision, losers, day)
    if not count:
        return sentence
    if latest is None:
        return f"{sentence} Also found: {_clicks(count)} {tier} that fraud rules refused."
    which = (_click_phrase(latest, day) if count == 1
             else f"the latest, {_of_time_from(latest, day)}")
    return (f"{sentence} Also found: {_clicks(count)} {tier} that "
            f"{'a fraud rule' if count == 1 else 'fraud rules'} refused ({which}: "
            f"{_refusal(latest)}).")


def _plain_step_sentence(step: Mapping, decision: Mapping, losers: list[Mapping],
                         day: date) -> str:
    method, outcome = step.get("method"), str(step.get("outcome", ""))
    if (method, outcome) in STEP_SENTENCES:
        return STEP_SENTENCES[(method, outcome)]
    click = decision.get("click")
    won = isinstance(click, Mapping) and decision.get("method") == method
    if method == INSTALL_REFERRER and outcome == "named source and campaign":
        return f"Named {_named_source(decision)} as the source, without a click of ours: matched."
    if won and outcome in ("matched", "matched the click it names"):
        return (f"Matched {_click_phrase(click, day)}, confidence "
                f"{_number(decision.get('score'))}.")
    if method == FINGERPRINT and outcome == "no click scored 60 or more":
        return _capital(_fingerprint_scores(losers)) + "."
    if method == FINGERPRINT and outcome == FINGERPRINT_SKIPPED:
        return _skipped_sentence(step)
    return _capital(outcome) + "."


def _skipped_sentence(step: Mapping) -> str:
    """'Skipped: tracking not authorized (the user denied tracking), and the app does not
    fingerprint iOS installs without consent, as Apple's policy asks; 2 clicks from this
    install's network were not compared.'"""
    status = step.get("att_status")
    why = ATT_WORDS.get(status, f"tracking status {status}")
    sentence = (f"Skipped: tracking not authorized ({why}), and the app does not fingerprint "
                "iOS installs without consent, as Apple's policy asks")
    count = step.get("network_clicks")
    if isinstance(count, int) and count > 0:
        verb = "was" if count == 1 else "were"
        sentence += f"; {_clicks(count)} from this install's network {verb} not compared"
    return sentence + "."


# --- Evidence -------------------------------------------------------------------------------

def _evidence(decision: Mapping) -> list[str]:
    factors = decision.get("factors")
    lines = _factor_words(factors if isinstance(factors, Mapping) else {})
    lines += _penalty_words(crowd=decision.get("crowd_penalty"),
                            ambiguity=decision.get("ambiguity_penalty"))
    return lines


def _factor_words(factors: Mapping) -> list[str]:
    words = []
    for name, value in factors.items():
        if name == "referrer_click_id":
            words.append(f"the install referrer named click {value}")
        elif name == "referrer_source":
            words.append(f"the install referrer named the source {value}")
        elif name == "platform_referrer":
            words.append(f"the platform's encrypted referrer {PLATFORM_ORIGINS.get(value, value)}"
                         " decrypted with the app's key")
        elif name in ("media_source", "campaign_id", "touch"):
            continue  # said by the summary
        else:
            words.append(f"{_factor_phrase(name, _float(value))} {_points(value)}")
    return words


def _factor_phrase(name: str, value: float) -> str:
    if name == "ip":
        return "same IP address" if value == fingerprint.IP_EXACT else "same network"
    if name == "device_model" and value == fingerprint.MODEL_CLASS_MATCH:
        return "same device class"
    if name == "language" and value == fingerprint.LANGUAGE_PRIMARY:
        return "same language, another region"
    phrases = {"os": ("same OS", "different OS"),
               "os_version": ("same OS version", "different OS version"),
               "os_minor": ("same OS minor version", "different OS minor version"),
               "device_model": ("same device model", "different device model"),
               "language": ("same language and region", "different language"),
               "device_id": ("same device id", "different device id"),
               "os_contradiction": ("", "the click's OS contradicts the install's platform")}
    same, different = phrases.get(name, (name, name))
    return same if value > 0 else different


def _penalty_words(*, crowd, ambiguity) -> list[str]:
    words = []
    if _float(crowd) > 0:
        words.append(f"other devices clicked from the same address -{_number(crowd)}")
    if _float(ambiguity) > 0:
        words.append(f"other devices on this network score alike -{_number(ambiguity)}")
    return words


# --- The clicks that lost -------------------------------------------------------------------

def _lost(click: Mapping, day: date) -> LostClick:
    reason = str(click.get("lost_because", ""))
    if reason.startswith("score ") and " below " in reason:
        scored, _, threshold = reason[len("score "):].partition(" below ")
        reason = f"scored {scored}, below {threshold}"
    factors = click.get("factors")
    penalties = click.get("penalties") if isinstance(click.get("penalties"), Mapping) else {}
    evidence = _factor_words(factors if isinstance(factors, Mapping) else {})
    evidence += _penalty_words(crowd=penalties.get("crowd"), ambiguity=penalties.get("ambiguity"))
    return LostClick(
        clicked_at=_time(click.get("clicked_at"), day),
        source=_source(click),
        tier=TIER_NAMES.get(click.get("method"), ""),
        reason=_capital(LOST_REASONS.get(reason, reason)),
        score=_number(click["confidence"]) if click.get("confidence") is not None else "",
        evidence=", ".join(evidence),
    )


# --- Words for values -----------------------------------------------------------------------

def _click_phrase(click: Mapping, day: date) -> str:
    return f"the click {_of_time_from(click, day)}"


def _of_time_from(click: Mapping, day: date) -> str:
    return f"of {_time(click.get('clicked_at'), day)} from {_source(click)}"


def _source(click: Mapping) -> str:
    source, campaign = click.get("media_source"), click.get("campaign_id")
    if source and campaign:
        return f"{source} / {campaign}"
    if source:
        return str(source)
    return f"no source / {campaign}" if campaign else "no source"


def _named_source(decision: Mapping) -> str:
    factors = decision.get("factors")
    named = factors.get("referrer_source") if isinstance(factors, Mapping) else None
    return str(named) if named else "a source"


def _window(window_start) -> str:
    start = _parse(window_start)
    if start is None:
        return ""
    return f"Clicks from {start:%Y-%m-%d %H:%M} UTC up to the install took part."


def _time(value, day: date) -> str:
    moment = _parse(value)
    if moment is None:
        return "an unknown time"
    return f"{moment:%H:%M}" if moment.date() == day else f"{moment:%Y-%m-%d %H:%M}"


def _parse(value) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return _utc(datetime.fromisoformat(value))
    except ValueError:
        return None


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _number(value) -> str:
    """41.25 -> '41.25', 100.0 -> '100', 38.5 -> '38.5'."""
    text = f"{_float(value):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _points(value) -> str:
    number = _float(value)
    return f"+{_number(number)}" if number > 0 else _number(number)


def _clicks(count: int, adjective: str = "") -> str:
    noun = "click" if count == 1 else "clicks"
    return " ".join(word for word in (str(count), adjective, noun) if word)


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
