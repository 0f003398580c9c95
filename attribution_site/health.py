"""Liveness (/healthz: the process answers) and readiness (/readyz: its backing services do).

/readyz also reports overdue deliveries (docs/delivery.md, "Overdue deliveries") as a
"warning" check with their count, without failing readiness: this process can still serve, and
taking every web process out of the load balancer would turn late postbacks into lost installs.
Rows waiting in a default partition (clicks or events outside every day partition: beat has
not made the day's partition, docs/decisions.md "Day partitions") are a "warning" too: nothing
is refused for want of a partition, but the default partition only grows until beat runs.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.utils import timezone

from attribution_site import redis_rest
from attribution_site.api import envelope
from attribution_site.api.exceptions import ServiceUnavailable

logger = logging.getLogger(__name__)


def healthz(request):
    return envelope.success_response({"status": "ok"})


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:  # noqa: BLE001
        logger.warning("readiness: database unreachable", exc_info=True)
        return False


def _redis_ok() -> bool | None:
    if not settings.REDIS_URL:
        return None
    try:  # a fresh plain connection: the request path's rest would hide Redis's real state
        with redis_rest.client(resting=False, shared=False, socket_connect_timeout=1,
                               socket_timeout=1) as client:
            return bool(client.ping())
    except Exception:  # noqa: BLE001
        logger.warning("readiness: redis unreachable", exc_info=True)
        return False


def _deliveries(database_ok: bool) -> tuple[str, dict | None]:
    """("ok" | "warning" | "not checked", the overdue figures)."""
    if not database_ok:
        return "not checked", None
    from delivery import watch

    try:
        overdue = watch.overdue_now()
    except Exception:  # noqa: BLE001
        logger.warning("readiness: could not count overdue deliveries", exc_info=True)
        return "not checked", None
    return ("warning" if overdue.count else "ok"), {
        "overdue": overdue.count, "overdue_capped": overdue.capped,
        "oldest_overdue_seconds": overdue.oldest_late_seconds(timezone.now()),
        "late_after_seconds": overdue.late_seconds}


def _replica(database_ok: bool) -> tuple[str, dict | None]:
    """("ok" | "warning" | "down" | "not configured" | "not checked", the replay lag). Never a
    failure: reports read the primary while the replica is down (attribution_site/replica.py)."""
    from attribution_site import replica

    if not replica.configured():
        return "not configured", None
    if not database_ok:  # the lag is measured against the primary
        return "not checked", None
    try:
        lag = replica.replica_lag()
    except Exception:  # noqa: BLE001
        logger.warning("readiness: read replica unreachable", exc_info=True)
        return "down", None
    return lag.state, {"lag_bytes": lag.bytes, "lag_seconds": lag.seconds,
                       "replay_paused": lag.paused}


def _partitions(database_ok: bool) -> tuple[str, dict | None]:
    """("ok" | "warning" | "not checked", the rows in each default partition)."""
    if not database_ok:
        return "not checked", None
    from tracking import partition_sql

    try:
        waiting = partition_sql.default_rows()
    except Exception:  # noqa: BLE001
        logger.warning("readiness: could not count rows in default partitions", exc_info=True)
        return "not checked", None
    if waiting is None:  # SQLite: plain tables
        return "not checked", None
    return ("warning" if any(waiting.values()) else "ok"), {
        "default_rows": waiting, "default_rows_cap": partition_sql.DEFAULT_ROWS_CAP}


def readyz(request):
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    ready = all(ok is not False for ok in checks.values())
    body = {"status": "ready" if ready else "unavailable",
            "checks": {name: ("ok" if ok else "not configured" if ok is None else "down")
                       for name, ok in checks.items()}}
    body["checks"]["deliveries"], body["deliveries"] = _deliveries(bool(checks["database"]))
    body["checks"]["partitions"], body["partitions"] = _partitions(bool(checks["database"]))
    body["checks"]["replica"], body["replica"] = _replica(bool(checks["database"]))
    if ready:
        return envelope.success_response(body)
    return envelope.error_response(ServiceUnavailable(details=body["checks"]))
