"""Queries built once per process and run again with other values.

Django builds a query anew on every request: each ``filter()`` clones the queryset and
resolves its lookups and joins, then the compiler writes the SQL. For the queries of
pages/listing.py that read what lists of papers show (authors, links, badges, award
entries), building took 1.5 to 4 ms each, several times what the database took to
answer (benchmarks/server_time.py, 5,000 papers: 2 ms of SQL, 10 ms of building on
the conference page). A :class:`PreparedQuery` builds its queryset once per database
connection alias and vendor, keeps the SQL, and then only puts the values of each
request in their places: the same SQL Django would write, the same rows.

Only Django's own ``values()`` and ``values_list()`` querysets (not those of a model
modeltranslation registers, whose rows it rewrites with its fallbacks) whose varying
values are integers (such as ids), lists of integers (``pk__in``) or texts compared
whole (``slug=``) or as a substring (``__contains``) can be prepared, and only when
their SQL holds no literal ``%``; anything else raises ``ValueError`` when first run,
so a query that cannot be prepared is found by the first test that runs it. Prepared
SQL is forgotten when a setting changes (tests).

A query built here is not (PostgreSQL's) prepared statement by itself: with server-side
binding psycopg prepares a statement a connection has run ``prepare_threshold`` times
(awardsite/settings.py), and after five runs PostgreSQL may then run it with a
*generic* plan, one made without the values. ``generic_plan=False`` keeps a query from
being prepared, so it is planned for its values on every run: for a query whose best
plan depends on them (the search's queries, pages/views/search.py).
"""

import contextlib

from django.core.signals import setting_changed
from django.db import connections
from django.db.models.query import ValuesIterable, ValuesListIterable

# Values that stand for the parameters while the query is built: integers no real
# key reaches, distinct per parameter, found again among the compiled parameters.
_SENTINEL_BASE = 2_000_000_000

# Stands for a text parameter while the query is built (with its number): characters
# of Unicode's private use area, which no lookup escapes or changes.
_TEXT_SENTINEL = "\ue000{}\ue000"

# Variants of one query kept (see PreparedQuery's ``keys``): past it, start over.
MAX_VARIANTS = 1000

_PREPARED = []  # every PreparedQuery, so that a changed setting can empty them


class PreparedQuery:
    """A ``values()`` or ``values_list()`` query built once, run with new values.

    ``build(**parameters)`` returns the queryset; each parameter is an integer, a
    list of integers for an ``__in`` lookup, or a text (see ``texts``). Calling the
    object with the parameters' real values returns the rows as a list: dicts for
    ``values()``, tuples for ``values_list()``, as the queryset itself would give them.
    An empty list for an ``__in`` parameter returns ``[]`` without a query, as Django
    does.
    """

    def __init__(self, build, *, lists=(), keys=(), texts=(), using="default", generic_plan=True):
        """``lists`` names the parameters that are lists of integers; ``texts`` those that
        are texts, compared whole (``slug=``) or by a ``LIKE`` pattern around them
        (``__contains``: escaped as Django escapes them); ``keys`` those given to ``build``
        as they are, each value making its own SQL (such as the bounds of a slice, which
        Django writes into the SQL): at most ``MAX_VARIANTS`` are kept. A parameter of
        ``lists`` or ``texts`` that a run leaves out is not part of that run's query:
        name what makes the SQL differ (such as how many there are) in a key.

        ``generic_plan=False``: on PostgreSQL, psycopg never prepares this query's
        statement, so the server plans it for the values of each run instead of
        switching to a generic plan (see the module's docstring); elsewhere no change.
        It may also be a function of the ``keys`` (as keyword arguments) returning
        whether that variant of the query may run with a generic plan."""
        self.build = build
        self.generic_plan = generic_plan
        self.lists = frozenset(lists)
        self.texts = frozenset(texts)
        self.keys = tuple(keys)
        self.using = using
        self.compiled = {}
        _PREPARED.append(self)

    def __call__(self, **values):
        """The rows of the query for these values (one query; none for an empty list)."""
        for name in self.lists:
            values[name] = list(dict.fromkeys(values[name]))
            if not values[name]:
                return []
        connection = connections[self.using]
        compiled = self._compiled(values, connection)
        with connection.cursor() as cursor, self._planning(connection, values):
            cursor.execute(*_sql(compiled, values, connection))
            rows = cursor.fetchall()
        _pieces, _slots, names, converters, as_tuples = compiled
        if converters:
            rows = [_converted(row, converters, connection) for row in rows]
        if as_tuples:
            # psycopg's and sqlite3's rows are tuples already (a list of them, from
            # fetchall()); only converted rows (lists) are made tuples.
            return rows if not converters else [tuple(row) for row in rows]
        return [dict(zip(names, row, strict=True)) for row in rows]

    def count(self, **values):
        """How many rows the query has for these values (one ``COUNT(*)`` query over it;
        none for an empty list). Build it unordered: the order would be counted for
        nothing."""
        for name in self.lists:
            values[name] = list(dict.fromkeys(values[name]))
            if not values[name]:
                return 0
        connection = connections[self.using]
        sql, params = _sql(self._compiled(values, connection), values, connection)
        with connection.cursor() as cursor, self._planning(connection, values):
            # ``sql`` is Django's compiled SQL with placeholders; values go in ``params``.
            cursor.execute(f"SELECT COUNT(*) FROM ({sql}) counted", params)  # nosec B608
            return cursor.fetchone()[0]

    def _planning(self, connection, values):
        """A context in which this query runs with ``values``: where ``generic_plan``
        says no, on a psycopg 3 connection that prepares statements, one that prepares
        none (psycopg reads its ``prepare_threshold`` at each execution; ``None`` turns
        preparing off)."""
        database = connection.connection
        threshold = getattr(database, "prepare_threshold", None)
        generic = self.generic_plan
        if callable(generic):
            generic = generic(**{name: values[name] for name in self.keys})
        if generic or threshold is None:
            return contextlib.nullcontext()
        return _prepare_threshold(database, None, threshold)

    def _compiled(self, values, connection):
        key = (self.using, connection.vendor, *(values[name] for name in self.keys))
        compiled = self.compiled.get(key)
        if compiled is None:
            if len(self.compiled) >= MAX_VARIANTS:
                self.compiled.clear()
            compiled = self.compiled[key] = self._compile(values, connection)
        return compiled

    def _compile(self, values, connection):
        sentinels = {}
        arguments = {}
        for number, name in enumerate(sorted(values)):
            if name in self.keys:
                arguments[name] = values[name]
                continue
            if name in self.texts:
                arguments[name] = _TEXT_SENTINEL.format(number)
                continue
            sentinel = _SENTINEL_BASE + number
            sentinels[sentinel] = name
            arguments[name] = [sentinel] if name in self.lists else sentinel
        queryset = self.build(**arguments)
        iterable = queryset._iterable_class
        if iterable not in (ValuesIterable, ValuesListIterable):
            raise ValueError(
                "Only Django's own values() and values_list() querysets can be prepared."
            )
        compiler = queryset.query.get_compiler(self.using, connection=connection)
        sql, params = compiler.as_sql()
        pieces = sql.split("%s")
        if "%%" in sql or len(pieces) != len(params) + 1:
            raise ValueError(f"This query cannot be prepared: {sql}")
        texts = {arguments[name]: name for name in values if name in self.texts}
        slots = []
        for param in params:
            name = sentinels.get(param) if isinstance(param, int) else None
            if name is not None:
                slots.append(("list" if name in self.lists else "value", name))
            elif isinstance(param, str) and param in texts:
                slots.append(("value", texts[param]))
            elif isinstance(param, str) and (like := _like_slot(param, texts)):
                slots.append(("like", like))
            elif isinstance(param, str) and any(sentinel in param for sentinel in texts):
                raise ValueError(f"A text parameter of this query is changed in its SQL: {sql}")
            else:
                slots.append(("fixed", param))
        found = {name if kind != "like" else name[1] for kind, name in slots if kind != "fixed"}
        if found != set(values) - set(self.keys):
            raise ValueError(f"A parameter of this query was not found in its SQL: {sql}")
        if connection.vendor == "postgresql":
            _as_arrays(pieces, slots)
        query = queryset.query
        if query.selected:
            names = list(query.selected)
        else:
            names = [*query.extra_select, *query.values_select, *query.annotation_select]
        fields = [column[0] for column in compiler.select[0 : compiler.col_count]]
        converters = compiler.get_converters(fields)
        return pieces, slots, names, converters, iterable is ValuesListIterable


@contextlib.contextmanager
def _prepare_threshold(database, threshold, restored):
    """psycopg connection ``database`` with ``prepare_threshold`` set to ``threshold``
    for the block, then ``restored``."""
    database.prepare_threshold = threshold
    try:
        yield
    finally:
        database.prepare_threshold = restored


def _like_slot(param, texts):
    """For a ``LIKE`` pattern ``param`` made of one text sentinel of ``texts`` (sentinel:
    name) between wildcards only (``%word%``, ``word%``): ``(before, name, after)``;
    otherwise ``None`` (that parameter cannot be prepared, and stays fixed)."""
    for sentinel, name in texts.items():
        before, found, after = param.partition(sentinel)
        if found and not before.strip("%") and not after.strip("%"):
            return before, name, after
    return None


def _as_arrays(pieces, slots):
    """On PostgreSQL: each ``column IN (%s, %s, ...)`` of a list parameter (``slots``,
    between ``pieces`` of SQL) becomes ``column = ANY(%s::bigint[])``, one array
    parameter, changing ``pieces`` and ``slots`` in place. PostgreSQL plans an ``IN``
    list as ``= ANY(ARRAY[$1, ...])`` anyway (the same index scan, the same rows), but
    with a placeholder per item the SQL and its parameters change with the number of
    items: psycopg parses again each query of more than 50 parameters (its cache of
    converted queries skips them), and prepares a statement per length of the list.

    The array is sent as the text of an array literal (``{1,2,3}``, see ``_sql``), cast
    in the SQL: psycopg's adapter for a Python list of integers looks through the list
    for the smallest integer type and dumps it item by item, about 60 us of CPU for a
    conference page's 150 keys against 15 us for the text (timed through psycopg's
    ``PostgresQuery.convert``). ``bigint`` holds every key (integers, ``BigAutoField``);
    PostgreSQL compares it with ``integer`` and ``smallint`` columns through their index
    (one btree operator family)."""
    for position, (kind, name) in enumerate(slots):
        before, after = pieces[position], pieces[position + 1]
        if kind == "list" and before.endswith(" IN (") and after.startswith(")"):
            pieces[position] = before.removesuffix("IN (") + "= ANY("
            pieces[position + 1] = "::bigint[]" + after
            slots[position] = ("array", name)


def _sql(compiled, values, connection):
    """The SQL and parameters of a compiled query for these values."""
    pieces, slots, _names, _converters, _as_tuples = compiled
    sql, params = [pieces[0]], []
    for (kind, value), piece in zip(slots, pieces[1:], strict=True):
        if kind == "fixed":
            sql.append("%s")
            params.append(value)
        elif kind == "like":
            before, name, after = value
            sql.append("%s")
            params.append(before + connection.ops.prep_for_like_query(values[name]) + after)
        elif kind == "list":
            sql.append(", ".join(["%s"] * len(values[value])))
            params.extend(values[value])
        elif kind == "array":
            sql.append("%s")
            params.append("{" + ",".join([str(int(key)) for key in values[value]]) + "}")
        else:
            sql.append("%s")
            params.append(values[value])
        sql.append(piece)
    return "".join(sql), params


def _converted(row, converters, connection):
    row = list(row)
    for position, (functions, expression) in converters.items():
        value = row[position]
        for function in functions:
            value = function(value, expression, connection)
        row[position] = value
    return row


def _forget(**kwargs):
    """A changed setting (LANGUAGES, DATABASES, ... in tests) may change the SQL."""
    for prepared in _PREPARED:
        prepared.compiled.clear()


setting_changed.connect(_forget, dispatch_uid="pages.prepared")
