"""Liveness (/healthz: the process answers) and readiness (/readyz: its backing services do).

/readyz fails only on the database and Redis. Beside them it runs the checks the apps
registered (attribution_site/readiness.py; each app's own `readiness` module says what it
reports) and the read replica's lag, each reported as "ok", "warning" and the like without
failing readiness.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection

from attribution_site import readiness, redis_clients
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
        with redis_clients.client(resting=False, shared=False, socket_connect_timeout=1,
                               socket_timeout=1) as client:
            return bool(client.ping())
    except Exception:  # noqa: BLE001
        logger.warning("readiness: redis unreachable", exc_info=True)
        return False


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


def readyz(request):
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    ready = all(ok is not False for ok in checks.values())
    body = {"status": "ready" if ready else "unavailable",
            "checks": {name: ("ok" if ok else "not configured" if ok is None else "down")
                       for name, ok in checks.items()}}
    for name, (state, details) in readiness.run_all(checks).items():
        body["checks"][name], body[name] = state, details
    body["checks"]["replica"], body["replica"] = _replica(bool(checks["database"]))
    if ready:
        return envelope.success_response(body)
    return envelope.error_response(ServiceUnavailable(details=body["checks"]))
