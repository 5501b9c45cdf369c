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

import time

import redis
from django.core.cache.backends import redis as django_redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError as RedisResponseError


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

    def tracked(self, key):
        """A new :class:`TrackedKey` for ``key`` (a key as given to ``get``), on its own
        connection to the first server (where writes go), with this cache's options and
        serializer, its value read once; or None when Redis answers that set-up with an
        error: a server older than Redis 6 (no RESP3 ``HELLO``), or an ACL user not
        allowed ``CLIENT TRACKING`` or the key. Raises redis-py's ``ConnectionError``
        (or ``TimeoutError``) when Redis cannot be reached."""
        client = self._cache
        pool = client._pool_class.from_url(
            self._servers[0], **{**client._pool_options, "protocol": 3}
        )
        tracked = TrackedKey(
            redis.Redis(connection_pool=pool, single_connection_client=True),
            self.make_key(key),
            client._serializer.loads,
        )
        try:
            tracked.get()
        except RedisResponseError:
            return None
        return tracked


class TrackedKey:
    """The value of one Redis key, kept in memory until Redis says it changed.

    Redis's server-assisted client-side caching (``CLIENT TRACKING``, Redis 6 and
    later; https://redis.io/docs/latest/develop/reference/client-side-caching/): the
    connection here speaks RESP3 with tracking on, so once it has read the key, Redis
    sends it an invalidation message on the same connection when the key is written,
    deleted, expires or is evicted, or the database is flushed. :meth:`get` first reads
    whatever messages have arrived (a ``poll()`` of the socket, no round trip) and
    answers from memory unless one of them named the key; else it reads the key again,
    which also tracks it again. A message and the reply to a read share one connection
    and arrive in the order Redis sent them, so a write that Redis ran before the read
    is never mistaken for one after it.

    Why not redis-py's own client-side cache (``cache_config``, redis-py 5.1+, the same
    mechanism): it refuses servers older than Redis 7.4 ("client-side caching is
    supported by Redis 7.4 or later", redis/connection.py ``CacheProxyConnection``),
    and Debian 12 ships 7.0; it also bounds entries by count, not bytes.

    A value is also read again after ``max_age`` seconds whatever the messages say, a
    bound should a message be lost (or a connection be cut without Redis closing it).
    A connection that Redis closed (a restart, its
    idle timeout) is found when the messages are read: the key is then read again on
    a new connection, with tracking turned on first. An error of that read forgets
    the value, closes the connection and is raised; the next :meth:`get` tries again.
    Not thread-safe: its user holds a lock around it (``pagecache.caching.NearPages``).

    When does a reader see a write made by another process? Redis queues the
    invalidation to this connection while it runs the write, and sends it in the same
    pass of its event loop as its answer to the writer, not always first: right after
    the writer had its answer, the message had not yet arrived in 26-59 of 3,000 tries
    on one machine (it came microseconds later). The next :meth:`get` after it has
    arrived reads the key again. An app server that changes content writes the new
    generation as the change commits, before it answers its editor
    (``pagecache.caching.publish_content_generation``), so the message is on its way to
    every other server long before the editor's next request can reach one of them
    (microseconds on one network against that request's own round trips).
    """

    def __init__(self, client, key, loads, max_age=1.0):
        self._client = client
        self._key = key
        self._loads = loads
        self.max_age = max_age
        self._known = False
        self._value = None
        self._read_at = 0.0
        client.connection.register_connect_callback(self._track)
        # redis-py connects a single connection client's connection as it makes it, so
        # before the callback was there: connect again (on first use) to turn tracking on.
        client.connection.disconnect()

    def _track(self, connection):
        """On each (re)connection: route invalidation messages here, turn tracking on."""
        connection._parser.set_invalidation_push_handler(self._invalidated)
        connection.send_command("CLIENT", "TRACKING", "ON")
        connection.read_response()

    def _invalidated(self, message):
        """An invalidation message: ``[b"invalidate", [keys]]``, or ``None`` for a flush.
        Only this key is ever read on the connection, so any message retires it."""
        self._known = False

    def forget(self):
        """Read the key again on the next :meth:`get` (e.g. after writing it here)."""
        self._known = False

    def get(self):
        """The key's value (None when it is missing), from memory while Redis has sent no
        invalidation for it and it was read less than ``max_age`` seconds ago, else read
        from Redis (one round trip). Raises redis-py's ``ConnectionError`` (and the
        like) when Redis cannot be reached."""
        connection = self._client.connection
        if self._known:
            try:
                while connection.can_read(timeout=0):
                    connection.read_response(push_request=True)
            except (RedisConnectionError, OSError):
                # Closed by Redis (a restart, its idle timeout): read again below, on a
                # new connection, with tracking turned on again by _track.
                self._known = False
                connection.disconnect()
            if self._known and time.monotonic() - self._read_at < self.max_age:
                return self._value
        try:
            # Known from now on unless a message read with the reply retires it.
            self._known = True
            self._read_at = time.monotonic()
            raw = self._client.get(self._key)
        except Exception:
            self._known = False
            connection.disconnect()
            raise
        self._value = None if raw is None else self._loads(raw)
        return self._value
