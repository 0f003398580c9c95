"""The date range every report page reads from its query string: a preset (`today`, `7d`,
`30d`) or `custom` with `start` and `end`. A custom range is checked by the analytics API's own
`PeriodQuery`, so the console allows exactly the ranges the API allows (same maximum length,
same messages). Ranges are whole UTC days, end included, as in the API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import urlencode

from analytics.serializers import PeriodQuery

PRESETS = {"today": ("Today", 1), "7d": ("7 days", 7), "30d": ("30 days", 30)}
DEFAULT_PRESET = "7d"


@dataclass(frozen=True)
class Range:
    start: date
    end: date
    preset: str  # a PRESETS key or "custom"
    errors: dict = field(default_factory=dict)  # {field: [messages]} of a refused custom range

    @property
    def query(self) -> str:
        """The query string that selects this range again (for links between pages)."""
        if self.preset == "custom":
            return urlencode({"range": "custom", "start": self.start.isoformat(),
                              "end": self.end.isoformat()})
        return urlencode({"range": self.preset})

    @property
    def presets(self) -> list[tuple[str, str]]:
        return [(key, label) for key, (label, _days) in PRESETS.items()]


def range_from_query(query, *, today: date) -> Range:
    """The range a page's query string asks for; a bad custom range falls back to the default
    preset and carries the API's messages, so the page says what was wrong."""
    preset = query.get("range") or DEFAULT_PRESET
    if preset == "custom":
        params = PeriodQuery(data={"app_id": "00000000-0000-0000-0000-000000000000",
                                   "start_date": query.get("start", ""),
                                   "end_date": query.get("end", "")})
        if params.is_valid():
            return Range(start=params.validated_data["start_date"],
                         end=params.validated_data["end_date"], preset="custom")
        errors = {{"start_date": "start", "end_date": "end"}.get(name, name): list(messages)
                  for name, messages in params.errors.items()}
        return _preset(DEFAULT_PRESET, today, errors)
    return _preset(preset if preset in PRESETS else DEFAULT_PRESET, today)


def _preset(preset: str, today: date, errors: dict | None = None) -> Range:
    days = PRESETS[preset][1]
    return Range(start=today - timedelta(days=days - 1), end=today, preset=preset,
                 errors=errors or {})
