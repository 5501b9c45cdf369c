"""What closes a database connection kept between requests (``DJANGO_CONN_MAX_AGE``)."""

from django.db import connections


def close_connections_that_failed(sender, **kwargs):
    """``got_request_exception`` receiver: close each of this thread's database
    connections on which an error occurred during the request (Django's
    ``errors_occurred``), unless it is inside a transaction, so that the next request
    opens a new one. Takes the signal's arguments; returns None.

    Django keeps such a connection when ``SELECT 1`` still works on it, which suits an
    error in one query but not one the connection itself carries: after a migration
    changed a column's type, every statement PostgreSQL had prepared on it (psycopg
    prepares a query at its 5th run, awardsite/settings.py) fails with "cached plan
    must not change result type" until the connection is closed. With connections kept
    an hour that was an hour of 500s on the pages reading that table (a tester's run:
    still failing nine minutes later); now it is one per worker. A new connection has
    no prepared statements.
    """
    for connection in connections.all(initialized_only=True):
        if connection.errors_occurred and not connection.in_atomic_block:
            connection.close()
