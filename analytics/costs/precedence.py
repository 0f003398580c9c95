"""Which cost counts (docs/analytics.md, "Ad spend in reports"): one cost per day, media source
and campaign — the network's pull over an uploaded CSV over none. Pure: standard library only;
every report that shows cost reads its rows through `counted`, and the CSV upload asks
`shadowed` which of its rows a pull outranks.

An uploaded row without a campaign is the media source's spend of that day, not split by
campaign: any pulled row of the same day and media source outranks it, or the day's spend
would be counted twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

PULL, CSV = "pull", "csv"


@dataclass(frozen=True, slots=True)
class CostFigure:
    """Spend of one day in one currency, at the level the reader asked for."""

    day: date
    media_source: str
    campaign_id: str
    currency: str
    spend: Decimal
    source: str  # PULL or CSV
    adset_id: str = ""
    ad_id: str = ""
    impressions: int | None = None  # None: the CSV does not say
    clicks: int | None = None


@dataclass(frozen=True)
class PulledKeys:
    """What the pulls cover: (day, media source, campaign) and (day, media source)."""

    campaigns: frozenset[tuple[date, str, str]]
    sources: frozenset[tuple[date, str]]

    @classmethod
    def of(cls, keys: Iterable[tuple[date, str, str]]) -> PulledKeys:
        campaigns = frozenset(keys)
        return cls(campaigns=campaigns,
                   sources=frozenset((day, source) for day, source, _ in campaigns))

    def outrank(self, day: date, media_source: str, campaign_id: str) -> bool:
        """Whether a pull covers this uploaded key, which then does not count."""
        if campaign_id == "":
            return (day, media_source) in self.sources
        return (day, media_source, campaign_id) in self.campaigns


def counted(*, pulled: Iterable[CostFigure], uploaded: Iterable[CostFigure]
            ) -> list[CostFigure]:
    """Every pulled figure, and the uploaded ones no pull outranks."""
    pulled = list(pulled)
    keys = PulledKeys.of((f.day, f.media_source, f.campaign_id) for f in pulled)
    return pulled + [f for f in uploaded if not keys.outrank(f.day, f.media_source,
                                                             f.campaign_id)]


def shadowed(*, uploaded: Iterable[tuple[date, str, str]], pulled: PulledKeys
             ) -> list[tuple[date, str, str]]:
    """The uploaded (day, media source, campaign) keys a pull outranks, in the given order."""
    return [key for key in uploaded if pulled.outrank(*key)]


def source_of(sources: Iterable[str]) -> str | None:
    """The cost source of a row summing figures: "pull", "csv", "mixed", or None (no cost)."""
    found = set(sources)
    if not found:
        return None
    return found.pop() if len(found) == 1 else "mixed"
