"""Every Redis client our code makes comes from `client` (Celery keeps its broker connection);
on the request path it leaves Redis alone for a few seconds after a failure.

What the SDK endpoints keep in Redis they can do without for a while: the API-key cache (the
database has the keys), the rate limiter's shared count (each process can judge by its own) and
the delivery hand-off (the sweep sends what was not handed over). A Redis that refuses
connections fails in a fraction of a millisecond, but one that hangs (a host gone from the
network, a stuck server) holds every call for its socket timeout, and a request makes several:
an install took 2 s instead of a few milliseconds (docs/decisions.md). So the first call that
cannot connect, or times out waiting for an answer, puts Redis at rest for REST_SECONDS; until
then every call that needs a new connection fails at once and its caller takes its fallback. A
connection reset by a restarted Redis does not count: the one retry reconnects. Plain
connections serve /readyz (Redis's real state) and the local caches' invalidations
(attribution_site/local_cache.py), which must go out even while this process rests.

Per process, in memory: each process finds out for itself, at the cost of one slow call.
"""

from __future__ import annotations

import time

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

REST_SECONDS = 5.0
_resting_until = 0.0
_shared: dict[tuple, redis.Redis] = {}


def resting() -> bool:
    return time.monotonic() < _resting_until


def failed() -> None:
    """Redis failed a call: leave it alone for REST_SECONDS."""
    global _resting_until
    _resting_until = time.monotonic() + REST_SECONDS


def reset() -> None:
    """Forget a failure (tests)."""
    global _resting_until
    _resting_until = 0.0


class _Resting:
    def connect_check_health(self, *args, **kwargs):
        if self._sock is None and resting():
            raise redis.ConnectionError("Redis is at rest after a failure (redis_clients.py)")
        try:
            return super().connect_check_health(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError):
            failed()
            raise

    def read_response(self, *args, **kwargs):
        try:
            return super().read_response(*args, **kwargs)
        except redis.TimeoutError:
            failed()
            raise


class RestingConnection(_Resting, redis.Connection):
    pass


class RestingSSLConnection(_Resting, redis.SSLConnection):
    pass


class RestingUnixConnection(_Resting, redis.UnixDomainSocketConnection):
    pass


_CLASS_BY_SCHEME = {"redis": RestingConnection, "rediss": RestingSSLConnection,
                    "unix": RestingUnixConnection}


def connection_options(url: str) -> dict:
    """Pool options for a Redis client on the request path.

    redis-py's default retries a failed connection ten times with backoff (130 ms against a
    refusing server); one immediate retry is enough to replace a connection Redis closed."""
    return {"connection_class": _CLASS_BY_SCHEME[url.split("://", 1)[0]],
            "retry": Retry(NoBackoff(), 1)}


def client(url: str | None = None, *, resting: bool = True, shared: bool = True,
           **options) -> redis.Redis:
    """A client for `url` (REDIS_URL by default) with redis-py's `options` (its timeouts, say).

    `resting` clients leave Redis alone after a failure (above). A `shared` client is made once
    per process for its url and options, and threads share its connection pool; an unshared
    one is the caller's, to close."""
    url = url or settings.REDIS_URL
    key = (url, resting, tuple(sorted(options.items())))
    if shared and key in _shared:
        return _shared[key]
    made = redis.Redis.from_url(url, **(connection_options(url) if resting else {}), **options)
    if shared:
        _shared[key] = made
    return made
