"""The outbox's two timing rules (docs/outbox.md). Pure: no ORM, no settings, no clock."""

from __future__ import annotations

# A little jitter spreads the retries of a burst that failed together (a receiver's outage) so
# they do not all come back in the same second: +/- 10 %.
JITTER_FRACTION = 0.1


def lease_seconds(timeout: float) -> float:
    """How long a claimed row belongs to its worker before the sweep takes it back.

    Twice the budget of one try plus a second: a worker that is merely slow to write its
    outcome keeps its claim, and one that died gives the row back soon after the budget is
    spent.
    """
    return 2 * timeout + 1


def jittered(base: float, draw: float) -> float:
    """`base` seconds, moved by up to JITTER_FRACTION either way; `draw` is a draw in [0, 1)."""
    return max(0.0, base * (1 + JITTER_FRACTION * (2 * draw - 1)))
