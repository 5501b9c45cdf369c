"""The API against its own OpenAPI schema, endpoint by endpoint (schemathesis).

schemathesis reads /api/v1/openapi.json through the WSGI application (no server),
generates requests for every operation from the schema (valid parameters, and for
each parameter values the schema forbids) and checks every answer: never a 5xx, the
status code, content type, headers and body as the schema documents them, and a 4xx
for what the schema forbids. It runs on the shipped ICML content, so real slugs come
up through the schema's examples and links. ``MAX_EXAMPLES`` bounds the examples per
operation (the run takes about a minute on a loaded two-core machine).
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from awardsite.wsgi import application

MAX_EXAMPLES = 25


@pytest.fixture
def api_schema(icml):
    """The API's schema as the running site serves it, with the ICML content loaded.

    schemathesis calls the WSGI application itself, so each request sends Django's
    ``request_started`` and ``request_finished``, whose ``close_old_connections``
    closes a database connection that is inside a transaction: on PostgreSQL that
    ended the test's transaction, and every later request met a closed connection (a
    500). Django's own test client disconnects the same handler around each request;
    so does this fixture, for the test.
    """
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_endpoint_answers_as_its_schema_says(case):
    # Public answers are gzipped for clients that accept it; the WSGI transport does
    # not decompress, so ask for plain bodies (tests/opendata/test_api.py covers gzip).
    case.call_and_validate(headers={"Accept-Encoding": "identity"})
