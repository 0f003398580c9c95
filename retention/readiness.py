"""Retention's readiness check (registered in RetentionConfig.ready(); attribution_site/
readiness.py; docs/privacy.md, "Retention"). A "warning", never a failure, when enforcement
falls behind:

- the last finished run is older than two days (beat runs it hourly), or there never was one
  while an app is older than that;
- an app's IP addresses are masked only up to more than a day before its cutoff (from the
  progress each run stores: rows past the limit by more than a day may still be there);
- on PostgreSQL, a day partition of the click archive or events lies more than a day past
  every app's `raw_retention_days`.

Read from retention's own rows and the catalog only: a probe never scans tracking's tables.
"""

from __future__ import annotations

from django.utils import timezone

from apps_registry.selectors import app_retention_limits
from attribution_site.readiness import Basics
from retention import policy
from retention.models import Enforcement, Progress
from tracking import retention as tracking_retention

MAX_APPS_LISTED = 20


def retention(basics: Basics) -> tuple[str, dict | None]:
    """Whether enforcing each app's retention limits has fallen behind.

    Answers ("ok" | "warning" | "not checked", the last run and what is behind)."""
    if not basics["database"]:
        return "not checked", None
    now = timezone.now()
    state = Enforcement.objects.filter(id=1).first()
    apps = app_retention_limits()
    last_finished = state.last_finished_at if state else None
    stale = policy.run_stale(now=now, last_finished=last_finished,
                             first_app_created=apps[0].created_at if apps else None)
    progress = {(row.table, row.app_id): row.masked_through for row in Progress.objects.all()}
    late_apps = []
    for app in apps:
        cutoff = policy.ip_cutoff(now=now, limits=policy.Limits(app.ip_retention_days,
                                                                app.raw_retention_days))
        for target in tracking_retention.WITH_ADDRESSES:
            reached = max(moment for moment in (progress.get((target.name, app.app_id)),
                                                progress.get((target.name, None)),
                                                app.created_at) if moment is not None)
            if policy.behind(cutoff=cutoff, reached=reached):
                late_apps.append(str(app.app_id))
                break
    common_raw = policy.common_cutoff(
        policy.raw_cutoff(now=now, limits=policy.Limits(app.ip_retention_days,
                                                         app.raw_retention_days))
        for app in apps)
    late_tables = []
    for target in tracking_retention.RAW:
        oldest = tracking_retention.oldest_partition(target)
        if oldest is not None and common_raw is not None and policy.behind(
                cutoff=common_raw, reached=oldest.end):
            late_tables.append(target.name)
    return ("warning" if stale or late_apps or late_tables else "ok"), {
        "last_run_finished_at": last_finished.isoformat() if last_finished else None,
        "last_run_complete": state.last_outcome.get("complete") if state else None,
        "run_stale": stale,
        "apps_behind_on_ip": len(late_apps), "apps_behind_listed": late_apps[:MAX_APPS_LISTED],
        "raw_behind_tables": late_tables}
