"""Whatever a visitor sends, the answer is never a 5xx.

A property-based test (hypothesis) sends requests to every public URL pattern, read
from the URLconf itself (everything outside the admin), so a new pattern is covered
without touching this file: random and real slugs, Unicode, NUL characters and very
long strings in the path and the query string, good and bad language prefixes, every
method, and bodies that cannot be parsed. The admin's autocomplete endpoint, which
every editor's form calls, gets the same treatment. Real slugs come from the sitemap
of the shipped content (fixtures/icml.json). The hypothesis profiles are in
tests/conftest.py (CI runs a derandomized one).

The findings it led to have their own plain regression tests below.
"""

import io
import logging
import re
from urllib.parse import quote, urlencode, urlsplit

import pytest
from django.test import Client, TestCase
from django.urls import Resolver404, URLResolver, get_resolver, resolve
from django.urls.resolvers import LocalePrefixPattern, RegexPattern, RoutePattern
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editorial.roles import create_editor

# The language prefixes a visitor might type: the site's own, and wrong ones.
GOOD_PREFIXES = ["en/", "zh-hans/"]
BAD_PREFIXES = ["", "fr/", "EN/", "zh/", "zh-Hans/", "zh_hans/", "zh-hant/", "en-us/", "x/"]
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"]
# Names the site's views and Django's read, and some they do not.
PARAMETER_NAMES = ["q", "page", "p", "year", "conference", "award", "preview", "language"]
PARAMETER_NAMES += ["next", "format", "o", "e", "_changelist_filters", "utm_source"]
# Django refuses a urlencoded body over 2.5 MB (DATA_UPLOAD_MAX_MEMORY_SIZE) and more
# than 1,000 fields (DATA_UPLOAD_MAX_NUMBER_FIELDS).
HUGE_BODY = b"a=" + b"x" * (3 * 1024 * 1024)
MANY_FIELDS = "&".join(f"f{n}=1" for n in range(1_100)).encode()
BODIES = [
    ("multipart/form-data", b"abc"),  # no boundary at all
    ("multipart/form-data; boundary=", b"abc"),
    ("multipart/form-data; boundary=zz", b"--zz\r\nbroken"),
    ("multipart/form-data; boundary=zz", b"--zz\r\nContent-Disposition: form-data\r\n\r\nx"),
    ("application/x-www-form-urlencoded", b"a=%ff%fe&b=\x00&%zz"),
    ("application/x-www-form-urlencoded", HUGE_BODY),
    ("application/x-www-form-urlencoded", MANY_FIELDS),
    ("application/json", b'{"a": [1, 2'),
    ("text/plain; charset=nonsense", b"\xff\xfe"),
]
# A CSRF cookie makes Django's CSRF check read the body of a POST.
CSRF_COOKIE = "abcdefghijklmnopqrstuvwxyzABCDEF"
BAD_HOSTS = ["bad host", "evil.example", "localhost:99999", "[::1", "a" * 300, "xn--"]

ROUTE_PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def url_patterns(resolver=None, chain=()):
    """Every URLPattern of the URLconf, as the chain of resolvers and the pattern that
    lead to it from the root."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry, (*chain, entry))
        else:
            yield (*chain, entry)


def is_admin(chain):
    return any(getattr(entry, "namespace", None) == "admin" for entry in chain)


def describe(chain):
    """The pattern's route from the root, as the URLconf writes it."""
    return "".join(str(entry.pattern) for entry in chain) or "(root)"


def unshadowed(chains):
    """``chains`` in URLconf order, less each pattern whose route an earlier one already
    has: Django never reaches it (django-ninja appends its own "api-root" at the API's
    root, where the API's index answers first)."""
    seen = set()
    for chain in chains:
        if describe(chain) not in seen:
            seen.add(describe(chain))
            yield chain


PUBLIC_PATTERNS = list(unshadowed(chain for chain in url_patterns() if not is_admin(chain)))

# Any text but surrogates (which no URL or form can carry), with long runs and NULs.
# codec="utf-8" leaves the surrogates out: st.characters() alone draws them now and
# then, and urlencode() then failed inside the test (UnicodeEncodeError).
characters = st.characters(codec="utf-8")
text = st.one_of(
    st.text(characters, max_size=40),
    st.builds(lambda char, count: char * count, characters, st.integers(500, 5_000)),
    st.sampled_from(["\x00", "a\x00b", "../../etc/passwd", "%", "%zz", "%ff", "😀" * 100]),
)
# Characters a URL carries unencoded but that mean something to a parser.
# The last two: a lone surrogate as UTF-8 ("\ud800") and an overlong "/".
raw_junk = st.sampled_from(
    ["%", "%zz", "%ff%fe", "%00", "%2F", ";", "&&=", "=", "+", "%E2%82", "%ED%A0%80", "%C0%AF"]
)


def encoded(strategy):
    """``strategy``'s text percent-encoded for a path segment or query value, sometimes
    with raw junk appended."""
    junk = st.just("") | raw_junk
    return st.builds(lambda value, tail: quote(value, safe="") + tail, strategy, junk)


query_strings = st.one_of(
    st.just(""),
    st.lists(
        st.tuples(st.sampled_from(PARAMETER_NAMES) | st.text(characters, max_size=10), text),
        max_size=4,
    ).map(lambda pairs: urlencode(pairs, encoding="utf-8")),
    st.lists(encoded(text) | raw_junk, max_size=4).map("&".join),
    st.builds(lambda name, value: f"{name}={value}", st.sampled_from(PARAMETER_NAMES), raw_junk),
)


def value_strategy(converter, real_values):
    """Values for one route parameter: a real one from the site, one its converter
    accepts, or any text (which the pattern may then not match: a 404)."""
    choices = [st.from_regex(converter.regex, fullmatch=True), encoded(text)]
    if real_values:
        choices.insert(0, st.sampled_from(sorted(real_values)))
    return st.one_of(choices)


def path_strategy(chain, real_kwargs):
    """Paths aimed at the pattern at the end of ``chain``.

    ``real_kwargs`` are the keyword arguments of real pages (from the sitemap) whose
    route starts this pattern's route, so a citation download is tried with a real
    paper's slug. Raises TypeError for a kind of pattern this test cannot fill yet.
    """
    pieces = []
    for entry in chain:
        pattern = entry.pattern
        if isinstance(pattern, LocalePrefixPattern):
            pieces.append(st.sampled_from(GOOD_PREFIXES) | st.sampled_from(BAD_PREFIXES))
        elif isinstance(pattern, RegexPattern):
            pieces.append(
                st.from_regex(pattern.regex, fullmatch=True).map(lambda s: quote(s, safe="/"))
            )
        elif isinstance(pattern, RoutePattern):
            route, position = str(pattern), 0
            for match in ROUTE_PARAMETER.finditer(route):
                pieces.append(st.just(route[position : match.start()]))
                real = {kwargs[match["name"]] for kwargs in real_kwargs if match["name"] in kwargs}
                pieces.append(value_strategy(pattern.converters[match["name"]], real))
                position = match.end()
            pieces.append(st.just(route[position:]))
        else:
            raise TypeError(f"no strategy for a {type(pattern).__name__}: {describe(chain)}")
    if not isinstance(chain[0].pattern, LocalePrefixPattern):
        # Addresses outside i18n_patterns, asked for under a language prefix.
        pieces.insert(0, st.just("") | st.sampled_from(GOOD_PREFIXES + BAD_PREFIXES))
    # The address as written, or without its trailing slash (CommonMiddleware's redirect).
    return (
        st.tuples(*pieces)
        .map("".join)
        .flatmap(lambda path: st.sampled_from([path, path.removesuffix("/")]))
    )


def request_strategy(path):
    """A whole request to ``path``: method, query string, body, cookies and headers."""
    return st.fixed_dictionaries(
        {
            "method": st.sampled_from(METHODS),
            "path": path,
            "query": query_strings,
            "body": st.sampled_from([("application/octet-stream", b""), *BODIES]),
            "csrf_cookie": st.booleans(),
            "headers": st.fixed_dictionaries(
                {},
                optional={
                    "accept-language": st.sampled_from(["zh-CN,zh;q=0.9", "*", "x" * 500, "fr"]),
                    "host": st.sampled_from(BAD_HOSTS),
                },
            ),
        }
    )


def send(request, user=None):
    """Send ``request`` (from request_strategy) through the whole stack, CSRF checks on,
    and return the response; an exception in a view becomes its 500 response."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    if request["csrf_cookie"]:
        client.cookies["csrftoken"] = CSRF_COOKIE
    content_type, body = request["body"]
    path = "/" + request["path"]
    if request["query"]:
        path += "?" + request["query"]
    response = client.generic(
        request["method"], path, body, content_type=content_type, headers=request["headers"]
    )
    if response.streaming:
        # Read to the end, as a server does: the test client then closes the response
        # (and its files) without the request_finished handler that closes the
        # database connection, which would end the test's transaction on PostgreSQL.
        # The client already closed any other response.
        b"".join(response.streaming_content)
    return response


def real_pages(client):
    """The keyword arguments of every page in the sitemap, with its pattern's route."""
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    pages = []
    for address in re.findall(r"<loc>([^<]+)</loc>", response.content.decode()):
        path = urlsplit(address).path
        with translation.override(translation.get_language_from_path(path)):
            match = resolve(path)
        pages.append((match.route, match.kwargs))
    return pages


@pytest.fixture
def site_pages(client, icml):
    """The shipped content, loaded once for all examples, and its pages' arguments."""
    return real_pages(client)


def paths_reaching(view, paths):
    """The paths drawn from ``paths`` (30, derandomized) that resolve to ``view``."""
    reached = set()

    @given(paths)
    @settings(max_examples=10, database=None, derandomize=True)
    def collect(path):
        try:
            match = resolve("/" + path)
        except Resolver404:  # junk that the pattern does not match
            return
        if match.func is view:
            reached.add(path)

    collect()
    return reached


def test_every_public_pattern_is_reached(site_pages):
    """Each pattern's strategy yields paths that resolve to that very pattern, so the
    property below really exercises all of them (a new kind of pattern fails here)."""
    assert len(PUBLIC_PATTERNS) >= 16
    for chain in PUBLIC_PATTERNS:
        route = describe(chain)
        real = [kwargs for page_route, kwargs in site_pages if route.startswith(page_route)]
        paths = path_strategy(chain, real)
        assert paths_reaching(chain[-1].callback, paths), f"no path reaches {route}"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_public_request_gets_a_server_error(site_pages, data):
    """Every example sends one random request to every public pattern.

    The shipped content is loaded once for all examples (the function-scoped fixture
    health check is off): the requests are anonymous and write nothing.
    """
    for chain in PUBLIC_PATTERNS:
        route = describe(chain)
        real = [kwargs for page_route, kwargs in site_pages if route.startswith(page_route)]
        request = data.draw(request_strategy(path_strategy(chain, real)), label=route)
        response = send(request)
        assert response.status_code < 500, (route, request["method"], request["path"])


# The admin's autocomplete: every parameter, valid names mixed with junk.
AUTOCOMPLETE_NAMES = {
    "app_label": ["papers", "auth", "admin", "reversion", "contenttypes"],
    "model_name": ["paper", "conference", "authorship", "awardentry", "award", "user"],
    "field_name": ["conference", "venue", "author", "affiliations", "paper", "award"],
}
AUTOCOMPLETE_NAMES["field_name"] += ["awards", "authorships", "entries", "id", "title", "groups"]


def autocomplete_query(names):
    """A query string for /admin/autocomplete/ with each parameter real, junk or absent."""
    values = {name: st.sampled_from(choices) | encoded(text) for name, choices in names.items()}
    values["term"] = encoded(text)
    values["page"] = st.sampled_from(["1", "2", "0", "-1", "last", "abc", "1.5", "9" * 30])
    values["page"] |= encoded(text)
    return st.fixed_dictionaries({}, optional=values).map(
        lambda params: "&".join(f"{key}={value}" for key, value in params.items())
    )


@pytest.fixture
def editor(db):
    """An editor: staff, with the editors' group permissions (see editorial.roles)."""
    return create_editor("editor", "editor@example.org", "a-long-editor-passphrase")


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(query=autocomplete_query(AUTOCOMPLETE_NAMES), method=st.sampled_from(["GET", "POST"]))
def test_no_autocomplete_request_gets_a_server_error(site_pages, editor, query, method):
    request = {
        "method": method,
        "path": "admin/autocomplete/",
        "query": query,
        "body": ("application/octet-stream", b""),
        "csrf_cookie": False,
        "headers": {},
    }
    response = send(request, user=editor)
    assert response.status_code < 500, query


# Regression tests for what the properties above found, each failing on the old code.


def _post_unparsable(path):
    """An anonymous POST to ``path`` with a CSRF cookie and a multipart body without a
    boundary, as a scanner sends it."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.cookies["csrftoken"] = CSRF_COOKIE
    return client.post(path, b"abc", content_type="multipart/form-data")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/no/such/page/", 404),
        ("/en/no/such/page/", 404),
        ("/en/search", 301),  # CommonMiddleware's redirect to /en/search/
        ("/en/", 400),  # the CSRF check cannot read the body
        ("/en/papers/no-such-paper/", 400),
        ("/i18n/setlang/", 400),
        ("/admin/login/", 400),
    ],
)
def test_unparsable_post_is_a_client_error(db, path, status):
    response = _post_unparsable(path)

    assert response.status_code == status


AUTOCOMPLETE = "/admin/autocomplete/?app_label=papers&model_name={model}&field_name={field}"


@pytest.mark.parametrize(
    ("query", "status"),
    [
        (AUTOCOMPLETE.format(model="paper", field="conference") + "&term=icml", 200),
        # A reverse relation, which no autocomplete widget sends: refused like any
        # other unusable field.
        (AUTOCOMPLETE.format(model="conference", field="papers") + "&term=x", 403),
        (AUTOCOMPLETE.format(model="paper", field="awards") + "&term=x", 403),
        (AUTOCOMPLETE.format(model="paper", field="authorships") + "&term=x", 403),
        (AUTOCOMPLETE.format(model="award", field="entries") + "&term=x", 403),
        # NUL, which PostgreSQL cannot compare: refused on every database.
        (AUTOCOMPLETE.format(model="paper", field="conference") + "&term=a%00b", 400),
        # Django's own answers, kept: not a number or out of range, unknown names.
        (AUTOCOMPLETE.format(model="paper", field="conference") + "&term=x&page=abc", 404),
        (AUTOCOMPLETE.format(model="paper", field="conference") + "&page=99999999999", 404),
        (AUTOCOMPLETE.format(model="paper", field="conference") + "&page=-1", 404),
        (AUTOCOMPLETE.format(model="paper", field="nope"), 403),
        (AUTOCOMPLETE.format(model="nope", field="conference"), 403),
        ("/admin/autocomplete/?app_label=nope&model_name=paper&field_name=conference", 403),
        ("/admin/autocomplete/?page=abc", 403),
    ],
)
def test_malformed_autocomplete_request_is_a_client_error(editor, client, query, status):
    client.raise_request_exception = False
    client.force_login(editor)

    response = client.get(query)

    assert response.status_code == status


def test_bad_host_is_a_400_logged_as_one_warning_line(db, client):
    """Scanners send many requests with a Host header not in DJANGO_ALLOWED_HOSTS:
    each gets the plain 400 page and one line in the log, without a traceback."""
    logger = logging.getLogger("django.security.DisallowedHost")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # its Formatter would print a traceback
    logger.addHandler(handler)
    client.raise_request_exception = False
    try:
        response = client.get("/en/", headers={"host": "bad host"})
    finally:
        logger.removeHandler(handler)

    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.content.decode()
    assert "<h1>错误的请求</h1>" in response.content.decode()
    assert stream.getvalue() == (
        "Invalid HTTP_HOST header: 'bad host'. "
        "The domain name provided is not valid according to RFC 1034/1035.\n"
    )


def test_bad_host_warning_level(db, client):
    """Logged at WARNING: a visitor's mistake, not an error of the site."""
    client.raise_request_exception = False
    with TestCase().assertLogs("django.security.DisallowedHost", "DEBUG") as logs:
        client.get("/en/", headers={"host": "evil.example"})

    assert [(record.levelname, record.exc_info) for record in logs.records] == [("WARNING", None)]


def test_permission_denied_page_is_bilingual(editor, client):
    client.raise_request_exception = False
    client.force_login(editor)

    response = client.get("/admin/auth/user/")

    assert response.status_code == 403
    assert "<h1>Access denied</h1>" in response.content.decode()
    assert "<h1>拒绝访问</h1>" in response.content.decode()
