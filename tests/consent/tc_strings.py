"""TC strings built bit by bit from the IAB's field table (Consent string and vendor list
formats v2, "TC String Format"), for the policy versions the published examples predate (4:
TCF v2.2, 5: TCF v2.3 with its disclosed-vendors segment) and for the consents end-to-end
tests need. The decoder under test is a separate implementation: this writer shares nothing
with it."""

from __future__ import annotations

import base64
from collections.abc import Iterable


class _Bits:
    def __init__(self):
        self.bits: list[str] = []

    def int(self, value: int, width: int) -> _Bits:
        self.bits.append(format(value, f"0{width}b"))
        return self

    def flags(self, numbers: Iterable[int], width: int) -> _Bits:
        chosen = set(numbers)
        self.bits.append("".join("1" if n in chosen else "0" for n in range(1, width + 1)))
        return self

    def letters(self, text: str) -> _Bits:
        for letter in text:
            self.int(ord(letter) - ord("A"), 6)
        return self

    def encoded(self) -> str:
        text = "".join(self.bits)
        text += "0" * (-len(text) % 8)
        raw = int(text, 2).to_bytes(len(text) // 8, "big") if text else b""
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")


DECISECONDS_2024 = 17_045_568_000  # 2024-01-06T16:00:00Z in tenths of a second


def tc_string(*, purposes: Iterable[int] = (), vendors: Iterable[int] = (),
              policy_version: int = 4, cmp_id: int = 300, cmp_version: int = 2,
              disclosed: Iterable[int] | None = None) -> str:
    vendors = sorted(set(vendors))
    max_vendor = max(vendors, default=0)
    core = (_Bits().int(2, 6).int(DECISECONDS_2024, 36).int(DECISECONDS_2024, 36)
            .int(cmp_id, 12).int(cmp_version, 12).int(1, 6).letters("EN").int(150, 12)
            .int(policy_version, 6).int(0, 1).int(0, 1).flags((), 12).flags(purposes, 24)
            .flags((), 24).int(0, 1).letters("DE")
            .int(max_vendor, 16).int(0, 1).flags(vendors, max_vendor)
            .int(0, 16).int(0, 1)  # no legitimate interests
            .int(0, 12))  # no publisher restrictions
    segments = [core.encoded()]
    if disclosed is not None:
        disclosed = sorted(set(disclosed))
        top = max(disclosed, default=0)
        segments.append(_Bits().int(1, 3).int(top, 16).int(0, 1).flags(disclosed, top).encoded())
    return ".".join(segments)


ALL_PURPOSES = range(1, 12)
GOOGLE = 755
