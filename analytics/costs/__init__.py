"""Ad spend: the pulled cost rows, the one rule for which cost counts, and the reports' reading
of it (docs/analytics.md, "Ad spend in reports"). Other apps call only what is named here."""

from analytics.costs.precedence import (
    CSV,
    PULL,
    CostFigure,
    PulledKeys,
    counted,
    shadowed,
    source_of,
)
from analytics.costs.reading import EXPORT_FIELDS, counted_costs, pulled_keys, rows_for_export
from analytics.costs.rows import MEDIA_SOURCES, SpendRow, row_problem
from analytics.costs.store import CostRowsRefused, ReplaceOutcome, cost_rows_replace

__all__ = ["CSV", "EXPORT_FIELDS", "MEDIA_SOURCES", "PULL", "CostFigure", "CostRowsRefused",
           "PulledKeys", "ReplaceOutcome", "SpendRow", "cost_rows_replace", "counted",
           "counted_costs", "pulled_keys", "row_problem", "rows_for_export", "shadowed",
           "source_of"]
