"""Raw-data export's readiness check (registered in RawExportConfig.ready(); attribution_site/
readiness.py): a warning when a destination's files are more than
RAW_EXPORT_BEHIND_WARNING_SECONDS (two hours by default) behind, naming it and its last error.
Never a failure: the service takes installs whether or not a bucket is reachable.
"""

from __future__ import annotations

from django.utils import timezone

from attribution_site.readiness import Basics
from raw_export import selectors


def destinations_behind(basics: Basics) -> tuple[str, dict | None]:
    """Destinations whose files are further behind than RAW_EXPORT_BEHIND_WARNING_SECONDS."""
    if not basics["database"]:
        return "not checked", None
    late = selectors.destinations_behind(now=timezone.now())
    if not late:
        return "ok", None
    return "warning", {"behind": [
        {"id": str(item.id), "name": item.name, "behind_seconds": int(item.lag.total_seconds()),
         "written_up_to": item.written_up_to.isoformat() if item.written_up_to else None,
         "last_error": item.last_error} for item in late]}
