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
from analytics.costs.reading import counted_costs, pulled_keys
from analytics.costs.rows import MEDIA_SOURCES, SpendRow, row_problem
from analytics.costs.store import CostRowsRefused, ReplaceOutcome, cost_rows_replace

__all__ = ["CSV", "MEDIA_SOURCES", "PULL", "CostFigure", "CostRowsRefused", "PulledKeys",
           "ReplaceOutcome", "SpendRow", "cost_rows_replace", "counted", "counted_costs",
           "pulled_keys", "row_problem", "shadowed", "source_of"]
