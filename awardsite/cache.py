"""Django's Redis cache backend, keeping one redis-py client per connection pool.

Django's ``RedisCacheClient.get_client()`` makes a new ``redis.Redis`` for every cache
operation, and redis-py 8's ``Redis.__init__`` fills a table of some 170 response
callbacks each time: about 0.3 ms, half the time of an answer from the page cache
(``benchmarks/server_time.py --profile paper-warm --redis-url ...``). A ``redis.Redis``
holds no connection of its own (it takes one from the pool for each command) and may be
shared between threads, so one per pool is enough. Django's ``get_client()`` says custom
clients may be written ("custom cache client can be implemented"); ``RedisCache`` has
no option to name one, so :class:`RedisCache` sets the client class its ``__init__``
chose. Everything else (pools, serializer, options, ``LOCATION``) is Django's own.
"""

import redis
from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    """Django's client, returning the same ``redis.Redis`` for a pool every time."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients_by_pool = {}

    def get_client(self, key=None, *, write=False):
        """The ``redis.Redis`` of the pool Django's client would use (made once)."""
        pool = self._get_connection_pool(write)
        client = self._clients_by_pool.get(id(pool))
        if client is None:
            client = self._clients_by_pool[id(pool)] = redis.Redis(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    """Django's ``RedisCache`` with :class:`RedisCacheClient` (``BACKEND`` when
    ``REDIS_URL`` is set, see settings)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
