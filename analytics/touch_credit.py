"""Multi-touch attribution models: how one install's credit is shared among its touchpoints
(spec: Analytics endpoints, `/analytics/attribution?model=`). Pure: no ORM, no clock.

A touchpoint is a click matched to the install's device within the attribution window, plus
the click the waterfall chose if it is not among them. The four models:
- last-touch: all credit to the waterfall's verdict (the source and campaign on the install);
- first-touch: all credit to the earliest touchpoint;
- linear: an equal share to every touchpoint;
- time-decay: a share proportional to 2^(-age / half-life), age measured back from the install.
Shares are grouped by (media source, campaign) and held to 10 decimal places; the rounding
remainder goes to the largest share, so the shares of every model add up to exactly 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

MODELS = ("last-touch", "first-touch", "linear", "time-decay")
DEFAULT_MODEL = "last-touch"
QUANTUM = Decimal("1e-10")
ONE = Decimal(1)

Key = tuple[str, str]  # (media_source, campaign_id)


@dataclass(frozen=True)
class Touch:
    key: Key
    at: datetime
    click_id: str  # breaks ties between touches made at the same instant


@dataclass(frozen=True)
class Credit:
    """One (media source, campaign)'s share of one install under each model."""

    touches: int
    last_touch: Decimal
    first_touch: Decimal
    linear: Decimal
    time_decay: Decimal


def install_credit(*, touches: Sequence[Touch], verdict: Key, installed_at: datetime,
                   half_life: timedelta) -> dict[Key, Credit]:
    """Shares of one attributed install. `touches` may be empty: then the verdict is the only
    touchpoint, dated at the install (an install-referrer match with no stored click)."""
    if not touches:
        touches = [Touch(key=verdict, at=installed_at, click_id="")]
    ordered = sorted(touches, key=lambda t: (t.at, t.click_id))
    counts: dict[Key, int] = {}
    linear: dict[Key, Decimal] = {}
    decay: dict[Key, Decimal] = {}
    half_life_seconds = half_life.total_seconds()
    for touch in ordered:
        counts[touch.key] = counts.get(touch.key, 0) + 1
        linear[touch.key] = linear.get(touch.key, Decimal(0)) + ONE
        age = max(0.0, (installed_at - touch.at).total_seconds())
        # A double is exact enough for a weight kept to 10 decimals, and a hundred times
        # faster than Decimal's power.
        decay[touch.key] = decay.get(touch.key, Decimal(0)) + Decimal(
            math.exp2(-age / half_life_seconds))
    with localcontext() as ctx:
        ctx.prec = 28
        linear_shares = _normalise(linear)
        decay_shares = _normalise(decay)
    keys = dict.fromkeys([*counts, verdict])  # the verdict may lie outside the device's clicks
    first = ordered[0].key
    return {
        key: Credit(
            touches=counts.get(key, 0),
            last_touch=ONE if key == verdict else Decimal(0),
            first_touch=ONE if key == first else Decimal(0),
            linear=linear_shares.get(key, Decimal(0)),
            time_decay=decay_shares.get(key, Decimal(0)),
        )
        for key in keys
    }


def _normalise(raw: dict[Key, Decimal]) -> dict[Key, Decimal]:
    total = sum(raw.values())
    shares = {key: (value / total).quantize(QUANTUM, rounding=ROUND_HALF_EVEN)
              for key, value in raw.items()}
    remainder = ONE - sum(shares.values())
    if remainder:
        largest = max(shares, key=lambda key: (shares[key], key))
        shares[largest] += remainder
    return shares
