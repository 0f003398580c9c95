"""Liveness (/healthz: the process answers) and readiness (/readyz: its backing services do)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

logger = logging.getLogger(__name__)


def healthz(request):
    return JsonResponse({"success": True, "data": {"status": "ok"}})


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
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1,
                                      socket_timeout=1)
        return bool(client.ping())
    except Exception:  # noqa: BLE001
        logger.warning("readiness: redis unreachable", exc_info=True)
        return False


def readyz(request):
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    ready = all(ok is not False for ok in checks.values())
    body = {"status": "ready" if ready else "unavailable",
            "checks": {name: ("ok" if ok else "not configured" if ok is None else "down")
                       for name, ok in checks.items()}}
    if ready:
        return JsonResponse({"success": True, "data": body})
    return JsonResponse({"success": False, "error": {
        "code": "INTERNAL_ERROR", "message": "A backing service is unavailable.",
        "details": body["checks"]}}, status=503)
