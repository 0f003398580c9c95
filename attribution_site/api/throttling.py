"""Rate limits counted in the shared cache (Redis in production), so every process agrees.

Fixed windows through django-ratelimit. When the cache is unreachable the limiter fails open
(the request goes through and a warning is logged): losing an install or locking every user out
because Redis blinked is worse than a few uncounted requests. See docs/decisions.md.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django_ratelimit.core import get_usage
from rest_framework.throttling import BaseThrottle

from attribution_site import redis_clients
from attribution_site.api.exceptions import RateLimited

logger = logging.getLogger(__name__)


def limit_hit(request, *, group: str, key: str, rate: str) -> int | None:
    """Count one request against `rate` for `key`; seconds to wait when over, else None."""
    try:
        usage = get_usage(request, group=group, key=lambda _g, _r: key, rate=rate,
                          increment=True)
    except Exception:  # noqa: BLE001 - any cache failure means "not counted", never a 500
        logger.warning("rate limiter unavailable for %s; request allowed", group, exc_info=True)
        return None
    if usage is None or not usage["should_limit"]:
        return None
    return max(1, int(usage["time_left"]))


def limit_peek(request, *, group: str, key: str, rate: str) -> int | None:
    """Seconds to wait when `key` has used all of `rate` already, else None; counts nothing
    (for limits that count only some outcomes, such as failed logins)."""
    try:
        usage = get_usage(request, group=group, key=lambda _g, _r: key, rate=rate,
                          increment=False)
    except Exception:  # noqa: BLE001 - any cache failure means "not counted", never a 500
        logger.warning("rate limiter unavailable for %s; request allowed", group, exc_info=True)
        return None
    if usage is None or usage["count"] < usage["limit"]:
        return None
    return max(1, int(usage["time_left"]))


def enforce(request, *, group: str, key: str, rate: str, message: str | None = None) -> None:
    wait = limit_hit(request, group=group, key=key, rate=rate)
    if wait is not None:
        raise RateLimited(wait, message)


class DashboardUserThrottle(BaseThrottle):
    """1,000 requests per minute per user on dashboard and management endpoints."""

    def allow_request(self, request, view):
        user = getattr(request, "user", None)
        if user is None or not getattr(user, "is_authenticated", False):
            return True
        self._wait = limit_hit(request, group="dashboard", key=str(user.pk),
                               rate=settings.DASHBOARD_RATE_LIMIT)
        return self._wait is None

    def wait(self):
        return self._wait


_pending: dict[str, list[int]] = {}  # bucket key -> [unsent count, last global count]
_pending_lock = threading.Lock()


def fixed_window_hit(bucket: str, *, limit: int, period: int = 1) -> int | None:
    """Count one request in `bucket`; seconds to wait when over `limit`, else None.

    The SDK hot paths call this on every request. Each process counts locally and adds its
    count to the shared Redis counter every `limit // 100` requests (every request for limits
    under 200, so small limits are exact); between syncs it judges by the last global count
    plus its own. A 100,000/s key thus costs one Redis round trip per thousand requests, and
    the limit may be overshot by at most 1% per process.

    Fails open like the rest: when the shared counter cannot be reached the request goes
    through, and while Redis is at rest (attribution_site/redis_clients.py) each process judges
    by its own count alone (a lower bound of the global one, so it never limits wrongly) and
    keeps what it counted for the next sync.
    """
    if not settings.RATELIMIT_ENABLE:
        return None
    now = time.time()
    window = int(now) // period
    key = f"rl:{bucket}:{window}"
    sync_every = max(1, limit // 100)
    with _pending_lock:
        if len(_pending) > 10_000:
            _pending.clear()
        state = _pending.setdefault(key, [0, 0])
        state[0] += 1
        unsent, known = state
        if unsent < sync_every or redis_clients.resting():
            return _verdict(known + unsent, limit, now, period)
        state[0] = 0
    try:
        count = _add_to_shared_count(key, unsent, period)
    except Exception:  # noqa: BLE001
        logger.warning("rate limiter unavailable for %s; request allowed", bucket,
                       exc_info=True)
        with _pending_lock:
            state[0] += unsent
        return None
    with _pending_lock:
        state[1] = count
    return _verdict(count, limit, now, period)


def _add_to_shared_count(key: str, amount: int, period: int) -> int:
    if settings.REDIS_URL:
        pipe = redis_clients.client(socket_connect_timeout=0.5, socket_timeout=0.5).pipeline(
            transaction=False)
        pipe.incrby(key, amount)
        pipe.expire(key, period + 1)
        return pipe.execute()[0]
    from django.core.cache import cache

    cache.add(key, 0, period + 1)
    return cache.incr(key, amount)


def _verdict(count: int, limit: int, now: float, period: int) -> int | None:
    if count <= limit:
        return None
    return max(1, period - int(now) % period)
