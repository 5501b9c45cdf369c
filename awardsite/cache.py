"""Django's Redis cache backend, with one held connection per thread and no key checks.

Django's ``RedisCacheClient.get_client()`` makes a new ``redis.Redis`` for every cache
operation, and redis-py 8's ``Redis.__init__`` fills a table of some 170 response
callbacks each time: about 0.3 ms, half the time of an answer from the page cache
(``benchmarks/server_time.py --profile paper-warm --redis-url ...``). Django's
``get_client()`` says custom clients may be written ("custom cache client can be
implemented"); ``RedisCache`` has no option to name one, so :class:`RedisCache` sets
the client class its ``__init__`` chose. Everything else (pools, serializer, options,
``LOCATION``) is Django's own.

:class:`RedisCacheClient` makes its ``redis.Redis`` once per connection pool, with
redis-py's ``single_connection_client``: the client holds one connection and sends
every command on it, instead of taking a connection from the pool and giving it back
around each command (a lock, a ``poll()`` of the socket and redis-py's bookkeeping: an
MGET took 25-40 us less CPU time, of a page-cache hit's 450-550 us). That suits
Django's cache handler, which gives each thread its own ``RedisCache``
(``django.core.cache.caches``), so each thread has its own client and connection;
redis-py still serialises commands on it with a lock. Before each operation the
connection is checked as the pool checks it when it hands one out (``can_read()``: a
``poll()`` that finds a connection Redis closed, e.g. on a restart or its ``timeout``
setting), and opened again if need be. A gunicorn worker that serves pages thus keeps
one connection to Redis for its life.

:class:`RedisCache` skips Django's key check (``validate_key``), which warns about
keys that memcached would refuse (over 250 characters, spaces, control characters):
Redis takes any key, and Django's documentation suggests overriding the method for a
backend that accepts a wider range of keys. It walked every character of the keys of
each page read (about 90 each).
"""

import redis
from django.core.cache.backends import redis as django_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class RedisCacheClient(django_redis.RedisCacheClient):
    """Django's client, returning the same ``redis.Redis`` for a pool every time,
    which holds one connection of that pool (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients_by_pool = {}

    def get_client(self, key=None, *, write=False):
        """The ``redis.Redis`` of the pool Django's client would use, made once, with
        its connection checked (see the module docstring). Raises redis-py's
        ``ConnectionError`` when Redis cannot be reached."""
        pool = self._get_connection_pool(write)
        client = self._clients_by_pool.get(id(pool))
        if client is None:
            client = self._clients_by_pool[id(pool)] = redis.Redis(
                connection_pool=pool, single_connection_client=True
            )
        connection = client.connection
        try:
            # Unread data or the end of the stream: left over or closed by Redis.
            stale = connection.can_read()
        except (RedisConnectionError, OSError):
            stale = True
        if stale:
            connection.disconnect()  # the next command connects again
        return client


class RedisCache(django_redis.RedisCache):
    """Django's ``RedisCache`` with :class:`RedisCacheClient` and without memcached's
    key check (``BACKEND`` when ``REDIS_URL`` is set, see settings)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def validate_key(self, key):
        """Accept every key: Redis keys may hold any bytes, of any length up to 512 MB."""
