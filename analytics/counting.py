"""What counts in the figures (docs/metrics.md, "What counts"): the one rule the rollups, every
analytics endpoint, the console's report pages, the CSV exports and the raw-data files apply to
an install and to an event's revenue. Pure: standard library and fraud's verdict names only.

An install counts (in installs, paid and organic installs, retention cohorts, lifetime value
and attribution credit) unless the fraud rules refused it (`blocked`) or took its credit back
after a click-flood finding (`post_attribution`): those are counted apart, each as a figure of
its own, never dropped. A flagged install counts: a flag marks, it does not refuse. An event's
revenue counts when the event's install counts, or when it is linked to no install; an event
stored as an event of a blocked install (`Event.is_blocked`) never counts.
"""

from __future__ import annotations

from fraud import verdict

# The install statuses counted apart, in the order the reports list them. The rollups store
# their installs and revenue under source types of the same names (analytics.models.SourceType).
NOT_COUNTED = (verdict.BLOCKED, verdict.POST_ATTRIBUTION)


def counted(fraud_status: str | None) -> bool:
    """Whether an install of this fraud status counts in the installs figures, and whether an
    event whose status (`event_status`) this is counts in the revenue figures."""
    return fraud_status not in NOT_COUNTED


def event_status(*, is_blocked: bool, install_status: str | None) -> str | None:
    """The fraud status an event and its revenue carry: `blocked` when the event was stored as
    an event of a blocked install, else its install's status (None: linked to no install)."""
    return verdict.BLOCKED if is_blocked else install_status
