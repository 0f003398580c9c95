"""Short link codes (docs/links.md, "Codes"): generated ones, chosen ones, and the short URL they
make. Pure: standard library only, no ORM, no clock.

A generated code is 7 characters from an alphabet without look-alikes (no 0/O/o, 1/l/I), so it
can be read aloud or typed from a poster: 55^7 is about 1.5 * 10^12 codes, and the service
retries the rare collision. A chosen code is 3 to 64 letters, digits, `-` and `_`; codes are
case-sensitive (generated ones mix cases), but a chosen code may not be, in any case, one of
the paths the service answers at the root of a host, because on a custom link domain a link
lives at `/{code}` beside them.
"""

from __future__ import annotations

import re
import secrets

GENERATED_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
GENERATED_LENGTH = 7
MIN_LENGTH, MAX_LENGTH = 3, 64
CHOSEN = re.compile(r"[A-Za-z0-9_-]+")
# Root paths of the service (attribution_site/urls.py, links/follow.py), lower-case. Anything
# with a dot (.well-known, favicon.ico, robots.txt) is refused by the alphabet already.
RESERVED = frozenset({
    "api", "admin", "console", "static", "l", "healthz", "readyz", "well-known", "favicon",
    "robots", "apple-app-site-association", "assetlinks", "login", "logout", "signup",
})

INVALID_MESSAGE = (f"Must be {MIN_LENGTH} to {MAX_LENGTH} characters: letters, digits, "
                   "'-' and '_'.")
RESERVED_MESSAGE = "This code is reserved: the service uses it as a path."


def could_be_code(value: str) -> bool:
    """Whether a string from a URL may name a link at all (every stored code fits: generated
    and chosen codes alike), checked before any lookup so junk never reaches the database."""
    return 0 < len(value) <= MAX_LENGTH and CHOSEN.fullmatch(value) is not None


def code_generate() -> str:
    """A fresh random code (uniqueness is the caller's to check: it retries on a collision)."""
    return "".join(secrets.choice(GENERATED_ALPHABET) for _ in range(GENERATED_LENGTH))


def code_problem(code: str) -> str | None:
    """Why a chosen code cannot be used, or None when it can."""
    if not MIN_LENGTH <= len(code) <= MAX_LENGTH or not CHOSEN.fullmatch(code):
        return INVALID_MESSAGE
    if code.lower() in RESERVED:
        return RESERVED_MESSAGE
    return None


def short_url(*, code: str, domain_host: str | None, own_origin: str) -> str:
    """The link's full short URL: `https://{host}/{code}` on a custom link domain (TLS is
    terminated in front of the service, see docs/links.md), else `{own_origin}/l/{code}`.
    Codes hold only URL-safe characters, so nothing needs quoting."""
    if domain_host:
        return f"https://{domain_host}/{code}"
    return f"{own_origin.rstrip('/')}/l/{code}"
