"""Checks of the App fields that the links' association files and "Open" button read (spec:
Apps; docs/links.md): the Apple team id, the Android signing-certificate fingerprints and the
app's own URL scheme; and the bounds of the retention limits that retention enforces
(docs/privacy.md, "Retention"). Pure: standard library only.

They live with the apps, whose API and console refuse what the files could not carry; the
links app reads them from here (its association files, its destinations' scheme rule), never
the other way round.
"""

from __future__ import annotations

import re

TEAM_ID = re.compile(r"[A-Z0-9]{10}")
FINGERPRINT = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){31}")
MAX_FINGERPRINTS = 10
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
# Schemes no app may claim as its own: each runs or reads something in the browser itself, or
# belongs to the web or the phone (the app field's check and the links' destinations share it).
NEVER_APP_SCHEMES = frozenset({"javascript", "data", "vbscript", "file", "blob", "about",
                               "http", "https", "intent", "content", "filesystem", "ftp", "ws",
                               "wss", "mailto", "tel", "sms"})


def team_id_problem(value: str) -> str | None:
    if TEAM_ID.fullmatch(value):
        return None
    return "Must be the 10-character Apple team id (upper-case letters and digits)."


def fingerprint(value: str) -> str | None:
    """A SHA-256 certificate fingerprint as Google writes it (32 upper-case hex pairs joined
    by colons), from that form in any case or from 64 bare hex digits; None otherwise."""
    value = value.strip().upper()
    if re.fullmatch(r"[0-9A-F]{64}", value):
        value = ":".join(value[i:i + 2] for i in range(0, 64, 2))
    return value if FINGERPRINT.fullmatch(value) else None


def url_scheme_problem(value: str) -> str | None:
    """RFC 3986 scheme syntax, and one an app may claim (not a web or browser scheme)."""
    bare = value.removesuffix("://").removesuffix(":")
    if not SCHEME.fullmatch(bare):
        return ("Must be a URL scheme such as myapp: a letter, then letters, digits, "
                "'+', '-' or '.'.")
    if bare.lower() in NEVER_APP_SCHEMES:
        return f"Cannot be {bare.lower()}: use the app's own scheme, such as myapp."
    return None


def normalized_url_scheme(value: str) -> str:
    return value.removesuffix("://").removesuffix(":").lower()


# Retention limits, in days (retention/policy.py applies them).
IP_RETENTION_DEFAULT_DAYS = 30
RAW_RETENTION_DEFAULT_DAYS = 730
IP_RETENTION_MINIMUM_DAYS = 1
RETENTION_MAXIMUM_DAYS = 3650  # ten years: longer is a typo, and no regulator calls it necessary
# Raw rows feed the rollups' rebuilds and incremental passes: an install day's touchpoints read
# the archived clicks of the 7-day attribution window before it, D30 retention reads the events
# of up to 30 days after an install, and late events and Apple Ads corrections come a few days
# after the fact. Below this, a rebuild or a late event could change a published figure.
RAW_RETENTION_MINIMUM_DAYS = 45


def retention_limits_problem(*, ip_days: int, raw_days: int) -> tuple[str, str] | None:
    """(field, message) when the two limits cannot be kept together; None when they can. Each
    field's own range is checked by the API's fields; this is the rule between them."""
    if raw_days < ip_days:
        return ("raw_retention_days",
                f"Must be at least ip_retention_days ({ip_days}): a raw row cannot outlive "
                "the limit on its IP address.")
    return None
