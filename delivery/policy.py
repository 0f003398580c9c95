"""Delivery policy (spec: Events, "Delivery"; Limits): what counts as success, when to retry, and
what a valid destination URL looks like (which addresses are refused is the outbound rule's,
outbox.addresses).

Pure: standard library (and the outbox's pure jitter) only, no ORM, no settings, no clock.
Callers pass in the configured delays, the attempt number and a random draw for the jitter, so
every rule here is tested as a plain function. See docs/delivery.md for the reasoning behind
each rule.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from outbox import timing
from outbox.addresses import host_literal_address

MAX_URL_LENGTH = 2048
RESPONSE_BODY_LIMIT = 2048

MACRO = re.compile(r"\{([^{}]*)\}")
HOST_LABEL = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


class ErrorKind(enum.StrEnum):
    """Why an attempt got no usable answer; `REFUSED` and `INVALID` are never retried."""

    TIMEOUT = "timeout"
    CONNECTION = "connection"
    REFUSED = "refused"
    INVALID = "invalid"


@dataclass(frozen=True)
class Outcome:
    """What one attempt produced, as the transport saw it."""

    status_code: int | None = None
    response_body: str = ""
    error_kind: ErrorKind | None = None
    error: str | None = None
    location: str | None = None
    duration_ms: int = 0


@dataclass(frozen=True)
class Verdict:
    succeeded: bool
    error_message: str | None
    permanent: bool = False


@dataclass(frozen=True)
class Decision:
    """`state` is succeeded, retry or failed; `retry_in` (seconds) is set only for retry."""

    state: str
    retry_in: float | None = None


def judge(outcome: Outcome) -> Verdict:
    """Only a 2xx answer is a success. A 3xx is a failure: redirects are never followed,
    because the target would escape the address check (and the receiver did not accept)."""
    if outcome.error_kind is not None:
        permanent = outcome.error_kind in (ErrorKind.REFUSED, ErrorKind.INVALID)
        return Verdict(False, outcome.error or outcome.error_kind.value, permanent)
    status = outcome.status_code or 0
    if 200 <= status < 300:
        return Verdict(True, None)
    if 300 <= status < 400:
        target = f" to {outcome.location[:200]}" if outcome.location else ""
        return Verdict(False, f"Redirect ({status}){target} not followed.")
    return Verdict(False, f"Receiver answered {status}.")


def max_attempts(delays: Sequence[int]) -> int:
    """The first try plus one retry per configured delay (default 60, 300, 1800: 4 tries)."""
    return 1 + len(delays)


def decide(*, verdict: Verdict, attempt_number: int, max_attempts: int,
           delays: Sequence[int], jitter: float) -> Decision:
    """What happens after attempt `attempt_number` (1-based). `jitter` is a draw in [0, 1)."""
    if verdict.succeeded:
        return Decision("succeeded")
    if verdict.permanent or attempt_number >= max_attempts or not delays:
        return Decision("failed")
    base = delays[min(attempt_number - 1, len(delays) - 1)]
    return Decision("retry", timing.jittered(base, jitter))


def exhausted(*, attempts_made: int, max_attempts: int) -> bool:
    """A delivery whose worker was lost mid-send is given up once it has had all its tries."""
    return attempts_made >= max_attempts


# --- Destinations ------------------------------------------------------------------------------

def url_problem(url: str, *, schemes: Iterable[str], macros: Iterable[str] | None = None
                ) -> str | None:
    """Why `url` is not an acceptable destination (None when it is).

    With `macros` the URL is a template: `{name}` may appear in the path, query or fragment
    and must be one of `macros`. Never in the scheme, host or port: a macro value there
    would choose the destination, which is exactly what the address check must decide.
    """
    schemes = tuple(schemes)
    macros = None if macros is None else tuple(macros)
    if not isinstance(url, str) or not url:
        return "Must be a URL."
    if len(url) > MAX_URL_LENGTH:
        return f"Must be at most {MAX_URL_LENGTH} characters."
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return "Must not contain spaces or control characters."
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "Must be an absolute URL with a valid host and port."
    if parts.scheme.lower() not in schemes:
        return f"Must be an absolute {' or '.join(schemes)} URL."
    if "{" in parts.netloc or "}" in parts.netloc:
        return "Macros are not allowed in the host or port; put them in the path or query."
    host = parts.hostname
    if not host or not _valid_host(host):
        return "Must be an absolute URL with a valid host."
    if port == 0:
        return "Must not use port 0."
    rest = url[len(parts.scheme) + 3 + len(parts.netloc):]
    names = MACRO.findall(rest)
    if macros is None:
        if "{" in rest or "}" in rest:
            return "Must not contain { or }."
        return None
    known = set(macros)
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join("{" + name + "}" for name in dict.fromkeys(unknown))
        return f"Unknown macro {listed}. Known macros: " + ", ".join(
            "{" + name + "}" for name in macros) + "."
    if MACRO.sub("", rest).count("{") or MACRO.sub("", rest).count("}"):
        return "Unbalanced { or } in the URL template."
    return None


def _valid_host(host: str) -> bool:
    if host_literal_address(host) is not None:
        return True
    if ":" in host:  # an IPv6 literal that did not parse
        return False
    labels = host.rstrip(".").split(".")
    return len(host) <= 253 and all(HOST_LABEL.match(label) for label in labels)
