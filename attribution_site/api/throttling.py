"""Rate limits counted in the shared cache (Redis in production), so every process agrees.

Fixed windows through django-ratelimit. When the cache is unreachable the limiter fails open
(the request goes through and a warning is logged): losing an install or locking every user out
because Redis blinked is worse than a few uncounted requests. See docs/decisions.md.
"""

from __future__ import annotations

import logging

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
