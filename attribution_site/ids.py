"""Time-ordered UUIDs (version 7, RFC 9562) for rows written at SDK rates.

A random (version 4) primary key lands on a random page of its index, so once the index
outgrows memory every insert reads a page from disk; the click archive keeps every click
forever and would get there first. Version 7 ids begin with the millisecond, so new keys go
to the right-hand edge of the index, and the 74 random bits keep them unguessable (a click
id travels in the Play Store referrer). Python 3.14 has uuid.uuid7; 3.11 does not.
"""

from __future__ import annotations

import os
import time
import uuid


def uuid7(now_ms: int | None = None) -> uuid.UUID:
    ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits: 12 for rand_a, 62 for rand_b
    value = ((ms & 0xFFFF_FFFF_FFFF) << 80) | (0x7 << 76) | ((rand >> 62) & 0xFFF) << 64
    value |= (0b10 << 62) | (rand & 0x3FFF_FFFF_FFFF_FFFF)
    return uuid.UUID(int=value)
