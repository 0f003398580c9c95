"""Django's Redis cache backend, reusing one client object per connection pool, and resting
after a failure (attribution_site/redis_rest.py).

Django builds a new `redis.Redis` for every cache call, which costs ~0.2 ms of Python (it sets
up some 170 response callbacks each time). The SDK endpoints read the cache on every request
(API keys), so the client is made once per pool; redis-py clients are thread-safe.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from attribution_site import redis_rest


class ReusingRedisCacheClient(RedisCacheClient):
    def __init__(self, servers, **options):
        super().__init__(servers, **options)
        self._pool_options.update(redis_rest.connection_options(servers[0]))
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ReusingRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient
