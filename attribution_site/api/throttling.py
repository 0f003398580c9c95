"""Rate limits counted in the shared cache (Redis in production), so every process agrees.

Fixed windows through django-ratelimit. When the cache is unreachable the limiter fails open
(the request goes through and a warning is logged): losing an install or locking every user out
because Redis blinked is worse than a few uncounted requests. See docs/decisions.md.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django_ratelimit.core import get_usage
from rest_framework.throttling import BaseThrottle

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


_redis_client = None


def _redis():
    global _redis_client
    if _redis_client is None:
        import redis

        _redis_client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.5,
                                             socket_timeout=0.5)
    return _redis_client


def fixed_window_hit(bucket: str, *, limit: int, period: int = 1) -> int | None:
    """Count one request in `bucket`; seconds to wait when over `limit`, else None.

    The SDK hot paths call this on every request, so with Redis it is one round trip (SET NX
    with expiry, INCR, pipelined) instead of django-ratelimit's two. Fails open like the rest.
    """
    if not settings.RATELIMIT_ENABLE:
        return None
    window = int(time.time()) // period
    key = f"rl:{bucket}:{window}"
    try:
        if settings.REDIS_URL:
            pipe = _redis().pipeline(transaction=False)
            pipe.set(key, 0, ex=period + 1, nx=True)
            pipe.incr(key)
            count = pipe.execute()[1]
        else:
            from django.core.cache import cache

            cache.add(key, 0, period + 1)
            count = cache.incr(key)
    except Exception:  # noqa: BLE001
        logger.warning("rate limiter unavailable for %s; request allowed", bucket,
                       exc_info=True)
        return None
    if count <= limit:
        return None
    return max(1, period - int(time.time()) % period)


class SdkKeyThrottle(BaseThrottle):
    """Each API key's own `rate_limit`, per second, across every process."""

    def allow_request(self, request, view):
        client = getattr(request, "user", None)
        key_id = getattr(client, "key_id", None)
        if key_id is None:
            return True
        self._wait = fixed_window_hit(f"key:{key_id}", limit=client.rate_limit)
        return self._wait is None

    def wait(self):
        return self._wait
