"""The SKAdNetwork report (`GET /api/v1/analytics/skan`; docs/apple.md, "The SKAdNetwork report"):
verified postbacks grouped by UTC day of arrival, conversion window, network and source identifier,
their values decoded through the schema version that was active when each arrived. Pure: standard
library and the pure modules `conversion.values` and `analytics.money`; the selectors fetch the
rows.

Why arrival: a postback carries no install time (Apple withholds it), only when it reached us.
The version active at arrival is the one the device most likely applied: a value is set during
its window and the postback follows 24-144 hours after the window closes. A schema change thus
misreads at most the postbacks of windows that were open across the change; docs/metrics.md
says so.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from analytics.money import Money, RateBook
from conversion import values


@dataclass(frozen=True)
class SchemaVersion:
    version: int
    created_at: datetime
    schema: values.Schema


@dataclass(frozen=True)
class ArrivedPostback:
    received_at: datetime
    window: int  # postback sequence index: 0, 1, 2 (before 4.0 always 0)
    ad_network_id: str
    source_identifier: str  # before 4.0 the campaign id, as text
    fine: int | None
    coarse: str | None
    did_win: bool | None  # None before 3.0, whose developer copies are all winners
    redownload: bool | None
    reengagement: bool  # AdAttributionKit re-engagement: no install


@dataclass
class SkanCounts:
    """What the report counts for a group of postbacks; the report's rows and the console's
    sums over them (per network, per window, the whole range) alike."""

    postbacks: int = 0
    installs: int = 0
    null_values: int = 0
    redownloads: int = 0
    decoded: int = 0
    undecoded: int = 0
    fine_values: dict[int, int] = field(default_factory=dict)
    coarse_values: dict[str, int] = field(default_factory=dict)
    estimated_revenue: Money = field(default_factory=Money)

    @property
    def null_value_share(self) -> Decimal | None:
        """Percent of the row's postbacks that carry no value."""
        if not self.postbacks:
            return None
        return Decimal(self.null_values) * 100 / Decimal(self.postbacks)

    @property
    def fine_value_list(self) -> list[dict]:
        return [{"value": value, "postbacks": count}
                for value, count in sorted(self.fine_values.items())]

    @property
    def coarse_value_counts(self) -> dict[str, int]:
        return {name: self.coarse_values.get(name, 0) for name in values.COARSE_VALUES}

    def add(self, other: SkanCounts) -> None:
        for name in ("postbacks", "installs", "null_values", "redownloads", "decoded",
                     "undecoded"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.fine_values, other.fine_values),
                             (self.coarse_values, other.coarse_values)):
            for value, count in theirs.items():
                mine[value] = mine.get(value, 0) + count
        self.estimated_revenue.merge(other.estimated_revenue)


@dataclass(kw_only=True)
class SkanRow(SkanCounts):
    date: date
    window: int
    media_source: str
    ad_network_id: str
    source_identifier: str


def skan_summed(rows: Iterable[SkanRow], key: Callable[[SkanRow], Hashable]
                ) -> dict[Hashable, SkanCounts]:
    """The rows' counts summed per `key(row)`, in the order the keys first appear."""
    sums: dict[Hashable, SkanCounts] = {}
    for row in rows:
        sums.setdefault(key(row), SkanCounts()).add(row)
    return sums


def version_active_at(versions: list[SchemaVersion], at: datetime) -> SchemaVersion | None:
    """The newest version created at or before `at` (`versions` oldest first)."""
    index = bisect.bisect_right([v.created_at for v in versions], at) - 1
    return versions[index] if index >= 0 else None


def skan_report(*, postbacks: Iterable[ArrivedPostback], versions: list[SchemaVersion],
                names: Mapping[str, str], book: RateBook) -> list[SkanRow]:
    """One row per (arrival day, window, network, source identifier), in that order. `names`
    maps ad network ids to media source names; `book` converts each version's currency to the
    report's at the rate of the arrival day."""
    rows: dict[tuple, SkanRow] = {}
    for postback in postbacks:
        day = postback.received_at.date()
        name = names.get(postback.ad_network_id, postback.ad_network_id)
        key = (day, postback.window, name, postback.ad_network_id, postback.source_identifier)
        row = rows.get(key)
        if row is None:
            row = rows[key] = SkanRow(date=day, window=postback.window, media_source=name,
                                      ad_network_id=postback.ad_network_id,
                                      source_identifier=postback.source_identifier)
        _count(row, postback, versions, book)
    return [rows[key] for key in sorted(rows)]


def _count(row: SkanRow, postback: ArrivedPostback, versions: list[SchemaVersion],
           book: RateBook) -> None:
    row.postbacks += 1
    if postback.window == 0 and postback.did_win is not False and not postback.reengagement:
        row.installs += 1
    if postback.redownload:
        row.redownloads += 1
    if postback.fine is None and postback.coarse is None:
        row.null_values += 1
        return
    if postback.fine is not None:
        row.fine_values[postback.fine] = row.fine_values.get(postback.fine, 0) + 1
    if postback.coarse is not None:
        row.coarse_values[postback.coarse] = row.coarse_values.get(postback.coarse, 0) + 1
    active = version_active_at(versions, postback.received_at)
    decoded = None if active is None else values.decode(
        schema=active.schema, window=postback.window, fine=postback.fine,
        coarse=postback.coarse)
    if decoded is None:
        row.undecoded += 1
        return
    row.decoded += 1
    row.estimated_revenue.add(book, decoded.estimated_revenue, active.schema.currency,
                              postback.received_at.date())
