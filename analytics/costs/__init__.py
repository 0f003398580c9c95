"""Ad spend: the pulled cost rows, the one rule for which cost counts, and the reports' reading
of it (docs/analytics.md, "Ad spend in reports"). Other apps call only what is named here."""

from analytics.costs.rows import MEDIA_SOURCES, SpendRow, row_problem
from analytics.costs.store import CostRowsRefused, ReplaceOutcome, cost_rows_replace

__all__ = ["MEDIA_SOURCES", "CostRowsRefused", "ReplaceOutcome", "SpendRow", "cost_rows_replace",
           "row_problem"]
