"""What closes a database connection kept between requests (``DJANGO_CONN_MAX_AGE``)."""

from django.db import connections


def close_connections_that_failed(sender, **kwargs):
    """``got_request_exception`` receiver: close this thread's database connections on
    which an error occurred, unless in a transaction. After a migration changed a column's
    type, PostgreSQL's prepared statements fail on a kept connection ("cached plan must
    not change result type") until it is closed: an hour of 500s, now one per worker."""
    for connection in connections.all(initialized_only=True):
        if connection.errors_occurred and not connection.in_atomic_block:
            connection.close()
