"""The web-to-app report's arithmetic (docs/web.md, "Web to app"): counts per visit source
into rows, totals and rates. Pure: the counts come from web_to_app/selectors.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MEASURES = ("banner_views", "banner_clicks", "banner_dismissals", "installs_from_banner",
            "installs_joined_by_customer_id")
ORGANIC = "organic"


@dataclass(frozen=True)
class SourceRow:
    visit_media_source: str
    banner_views: int = 0
    banner_clicks: int = 0
    banner_dismissals: int = 0
    installs_from_banner: int = 0
    installs_joined_by_customer_id: int = 0

    @property
    def click_rate(self) -> float | None:
        """Clicks per view; None without views (not 0: nothing was measured)."""
        return _ratio(self.banner_clicks, self.banner_views)

    @property
    def install_rate(self) -> float | None:
        """Installs from the banner per click."""
        return _ratio(self.installs_from_banner, self.banner_clicks)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def source_name(media_source: str | None) -> str:
    """A visit without a source (organic, or not known yet) is reported as `organic`."""
    return media_source or ORGANIC


def rows_of(counts: Mapping[str, Mapping[str | None, int]]) -> list[SourceRow]:
    """`counts[measure][visit source]` as one row per source, the busiest first (views, then
    clicks, then the name)."""
    merged: dict[str, dict[str, int]] = {}
    for measure, by_source in counts.items():
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure}")
        for source, count in by_source.items():
            row = merged.setdefault(source_name(source), {})
            row[measure] = row.get(measure, 0) + count
    rows = [SourceRow(visit_media_source=source, **values) for source, values in merged.items()]
    return sorted(rows, key=lambda r: (-r.banner_views, -r.banner_clicks, r.visit_media_source))


def total_of(rows: list[SourceRow]) -> SourceRow:
    return SourceRow(visit_media_source="", **{
        measure: sum(getattr(row, measure) for row in rows) for measure in MEASURES})


def row_answer(row: SourceRow) -> dict:
    answer = {measure: getattr(row, measure) for measure in MEASURES}
    answer.update(click_rate=row.click_rate, install_rate=row.install_rate)
    return answer
