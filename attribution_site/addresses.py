"""Dotted-quad IPv4 text, recognised without `ipaddress`. Pure.

Nearly every address the hot paths see is a plain dotted quad, and `ipaddress` takes ten to
twenty microseconds to parse one and print it back. This regular expression accepts exactly
what `ipaddress.IPv4Address` accepts (ASCII digits, no sign, no leading zero, 0-255), so text
it matches is already in canonical form; anything else is left to `ipaddress`.
"""

from __future__ import annotations

import re

_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(r"\.".join([_OCTET] * 4))


def dotted_quad(text: str) -> tuple[int, int, int, int] | None:
    """The four octets of a canonical IPv4 address, else None."""
    match = _DOTTED_QUAD.fullmatch(text)
    if match is None:
        return None
    a, b, c, d = map(int, match.groups())
    return a, b, c, d
