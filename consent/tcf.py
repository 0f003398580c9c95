"""Decoding of IAB TCF v2 TC strings (TCF v2.2 and v2.3; docs/privacy.md, "Consent"), the
fields the consent history keeps. Pure: the decoding is the pinned `iab-tcf-bitarray` library
(module `iab_tcf`); this wrapper adds what it leaves out: the character set, the version, and a
core segment long enough for every field it read (the library reads past the end as zeros)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import iab_tcf

GOOGLE_VENDOR_ID = 755
# Long enough for a full vendor bitfield plus every optional segment, short enough for a column
# read on every consent lookup.
MAX_LENGTH = 16_384
_SEGMENTS = re.compile(r"[A-Za-z0-9_-]+={0,2}(\.[A-Za-z0-9_-]+={0,2})*")


class TcfError(ValueError):
    """Not a TC string this service can use; the message says why, for the API's 400."""


@dataclass(frozen=True)
class TcString:
    version: int
    policy_version: int  # 2 for TCF v2.0/2.1, 4 for v2.2, 5 for v2.3
    cmp_id: int
    cmp_version: int
    vendor_list_version: int
    consent_language: str
    publisher_cc: str
    purposes_consent: tuple[int, ...]
    special_features_optin: tuple[int, ...]
    vendor_755: bool  # Google's consent as a vendor


def decode(tcstring: str) -> TcString:
    """The TC string's fields, or TcError."""
    if not tcstring:
        raise TcfError("Must not be empty; leave it out when the CMP has no TC string.")
    if len(tcstring) > MAX_LENGTH:
        raise TcfError(f"At most {MAX_LENGTH} characters.")
    if not _SEGMENTS.fullmatch(tcstring):
        raise TcfError("Not a TC string: base64url segments separated by dots.")
    core = tcstring.split(".", 1)[0]
    try:
        if iab_tcf.version(iab_tcf.base64_decode(core)) != 2:
            raise TcfError("Only TCF v2 strings (v2.2, v2.3) are accepted.")
        decoded = iab_tcf.decode_v2(tcstring)
    except TcfError:
        raise
    except Exception as exc:  # noqa: BLE001 - the library raises bare Exceptions and others
        raise TcfError("Not a valid TC string.") from exc
    if read_past_the_end(decoded):
        raise TcfError("Not a valid TC string: its core segment is truncated.")
    return TcString(
        version=decoded.version, policy_version=decoded.tcf_policy_version,
        cmp_id=decoded.cmp_id, cmp_version=decoded.cmp_version,
        vendor_list_version=decoded.vendor_list_version,
        consent_language=decoded.consent_language.decode(),
        publisher_cc=decoded.publisher_cc.decode(),
        purposes_consent=_granted(decoded.purposes_consent),
        special_features_optin=_granted(decoded.special_features_optin),
        vendor_755=decoded.is_vendor_allowed(GOOGLE_VENDOR_ID))


def read_past_the_end(decoded) -> bool:
    """Whether the library needed bits beyond the core segment's end (it reads them as zeros it
    made up). Its only private access: the bit reader's position and bytes, which iab-tcf-bitarray
    0.2.3 keeps as `_reader._pointer` (bits read) and `_reader._consent` (the segment's bits, a
    bitarray). tests/consent/test_tcf.py fails naming the version if either goes."""
    reader = decoded._reader
    return reader._pointer > len(reader._consent)


def _granted(bits: dict[int, bool]) -> tuple[int, ...]:
    return tuple(sorted(number for number, granted in bits.items() if granted))
