"""Django's Redis cache backend on the shared, resting client of attribution_site/redis_clients.py.

Django builds a new `redis.Redis` for every cache call, which costs ~0.2 ms of Python (it sets
up some 170 response callbacks each time). The SDK endpoints read the cache on every request
(API keys), so the client is made once per process and server; redis-py clients are
thread-safe.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from attribution_site import redis_clients


class ReusingRedisCacheClient(RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        server = self._servers[self._get_connection_pool_index(write)]
        return redis_clients.client(server, **self._pool_options)


class ReusingRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient
