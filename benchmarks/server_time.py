"""Server time of each public page, in this process, against a trivial Django view.

Run with ``.venv/bin/python benchmarks/server_time.py``. A benchmark that prints figures,
not a test. It calls the site's WSGI application (awardsite/wsgi.py, what gunicorn
calls, without the HTTP parsing and the network), so the figures are the site's own
time, and the machine's load weighs on the trivial view and the pages alike: compare
the ratios, which hold better than the milliseconds on a shared machine.

The data are benchmarks/import_conference.py's synthetic conferences (through the
importer), by default 5,000 papers and 15,000 authors at *one* conference, with 20
awards of 5 papers: the largest conference page there can be at that size (``make
bench`` deals the papers over 10 conferences). The data are built once into
``--database`` (an SQLite file, default ``benchmarks/.server_time.sqlite3``, kept for
the next run; ``--rebuild`` builds it again) or into ``--database-url`` (e.g. an empty
PostgreSQL database: built when it holds no paper). The page cache is the site's default,
local memory, unless ``--redis-url`` names a Redis server (as ``REDIS_URL`` does; it is
flushed first, so warm pages start from an empty cache).

For each page it prints, over ``--requests`` requests made round-robin over the pages
(so a burst of load slows them all alike): p50 and p95 in ms and the median CPU time
of this thread (which other processes' load hardly changes; on SQLite it includes
the queries, on PostgreSQL not the server's part: that is the "DB CPU" column, the
median CPU time of the connection's PostgreSQL server process during a request, read
from its /proc/<pid>/schedstat when the server runs on this machine and that file can be
read, such as by root; blank otherwise), *cold* (the page cache
off: every request renders) and *warm* (served from the page cache, as an anonymous
visitor with ``Accept-Encoding: gzip``); for warm pages the ratio of the trivial view's
median time to the page's (1.00: as quick as the trivial view; issue 13's target for
``make bench``'s req/s is 0.80); queries and HTML KB of a cold request. The trivial view
is ``HttpResponse("ok")`` behind Django's stock middleware (benchmarks/trivial_settings.py).

``--profile NAME`` (e.g. ``conference``, ``conference-warm``) instead prints cProfile's
top functions for that page, cold unless ``-warm`` is appended. ``--only a,b`` measures
the pages whose name contains one of the parts.
"""

import argparse
import cProfile
import gzip
import importlib.util
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(__file__).resolve().parent
DEFAULT_DATABASE = BENCHMARKS / ".server_time.sqlite3"
ENTRIES_PER_AWARD = 5


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--authors", type=int, help="default: three per paper")
    parser.add_argument("--conferences", type=int, default=1)
    parser.add_argument("--awards", type=int, default=20)
    parser.add_argument("--requests", type=int, default=40, help="per page and mode")
    parser.add_argument("--database", type=Path, default=DEFAULT_DATABASE, help="SQLite file")
    parser.add_argument("--database-url", help="another database (e.g. postgres://...)")
    parser.add_argument("--rebuild", action="store_true", help="build the SQLite data again")
    parser.add_argument("--redis-url", help="the page cache on Redis (e.g. redis://...)")
    parser.add_argument("--only", default="", help="comma-separated parts of page names")
    parser.add_argument("--profile", metavar="NAME", help="cProfile one page instead")
    parser.add_argument("--callees", metavar="REGEX", help="with --profile: what these call")
    options = parser.parse_args()
    options.authors = options.authors or 3 * options.papers
    if options.rebuild and options.database.exists():
        options.database.unlink()
    setup(options)
    pages = page_paths(options)
    if options.profile:
        profile(pages, options)
    else:
        measure(pages, options)
    return 0


def setup(options):
    """Set up Django in production mode on the benchmark database; build the data if new."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-server-time-"))
    url = options.database_url or f"sqlite:///{options.database.resolve()}"
    os.environ.update(
        DATABASE_URL=url,
        DJANGO_SECRET_KEY="benchmark-only-key-" + "x" * 40,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_STATIC_ROOT=str(workdir / "static"),
        DJANGO_MEDIA_ROOT=str(workdir / "media"),
        DJANGO_LOG_LEVEL="ERROR",
        DJANGO_SETTINGS_MODULE="awardsite.settings",
    )
    for name in ("DJANGO_INSECURE_DEV", "DJANGO_DEBUG", "DJANGO_PAGE_CACHE", "REDIS_URL"):
        os.environ.pop(name, None)
    if options.redis_url:
        os.environ["REDIS_URL"] = options.redis_url
    sys.path[:0] = [str(ROOT), str(BENCHMARKS)]
    import django

    django.setup()
    from django.core.management import call_command

    from catalogue.models import Paper

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    from django.core.cache import caches

    caches["default"].clear()
    if not Paper.objects.exists():
        build_data = site_pages().build_data

        print(f"building {options.papers} papers at {options.conferences} conference(s)...")
        started = time.perf_counter()
        build_data(_BuildOptions(options), workdir)
        print(f"built in {time.perf_counter() - started:.0f} s")


class _BuildOptions:
    """What benchmarks/page_load.py's build_data reads of its options."""

    def __init__(self, options):
        self.papers, self.authors = options.papers, options.authors
        self.conferences, self.awards = options.conferences, options.awards


def page_paths(options):
    """The pages measured: benchmarks/page_load.py's (the largest of each kind) and more."""
    pages = site_pages().page_urls()
    pages["conference p.2"] = pages["conference"] + "page/2/"
    pages["zh conference"] = pages["conference"].replace("/en/", "/zh-hans/", 1)
    pages["search 2 words"] = "/en/search/?q=prediction+learning"
    pages["authors A-Z p.75"] = "/en/authors/page/75/"
    pages["authors A-Z s"] = "/en/authors/letter/s/"
    pages["zh authors A-Z"] = pages["authors A-Z"].replace("/en/", "/zh-hans/", 1)
    wanted = [part for part in options.only.split(",") if part]
    return {
        name: path
        for name, path in pages.items()
        if not wanted or any(part in name for part in wanted)
    }


def site_pages():
    """benchmarks/page_load.py, the page benchmark, as a module."""
    return importlib.import_module("page_load")


def environ(path):
    """The WSGI environ of an anonymous ``GET path`` accepting gzip, as gunicorn builds it."""
    path, _, query = path.partition("?")
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_ACCEPT_ENCODING": "gzip",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
    }


def call(handler, path):
    """One request through ``handler``: ((wall, CPU seconds), status line, headers, body)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, headers

    started, cpu = time.perf_counter(), time.thread_time()
    result = handler(environ(path), start_response)
    try:
        body = b"".join(result)
    finally:
        result.close()
    seconds = (time.perf_counter() - started, time.thread_time() - cpu)
    return seconds, answer["status"], dict(answer["headers"]), body


def handlers():
    """The site's WSGI application, as gunicorn loads it (awardsite/wsgi.py), and the
    trivial view's handler (stock middleware, its own URLconf)."""
    import trivial_settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.test.utils import override_settings

    from awardsite.wsgi import application as site

    middleware = ["server_time.TrivialURLconfMiddleware", *trivial_settings.MIDDLEWARE]
    with override_settings(MIDDLEWARE=middleware):
        trivial = WSGIHandler()
    return site, trivial


class TrivialURLconfMiddleware:
    """Routes the trivial handler's requests to benchmarks/trivial_urls.py."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.urlconf = "trivial_urls"
        return self.get_response(request)


def measure(pages, options):
    """Print p50/p95 of every page cold and warm, and warm ratios to the trivial view."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    site, trivial = handlers()
    facts = {}
    for name, path in pages.items():
        settings.PAGE_CACHE_ENABLED = False
        with CaptureQueriesContext(connection) as queries:
            _seconds, status, headers, body = call(site, path)
        if not status.startswith("200"):
            raise RuntimeError(f"{path} answered {status}")
        html = gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body
        facts[name] = {"queries": len(queries), "html_kb": len(html) / 1024}
    times = {("trivial", "-"): []}
    database = {}  # (name, mode): the server process's CPU seconds of each request
    for mode, enabled in (("cold", False), ("warm", True)):
        settings.PAGE_CACHE_ENABLED = enabled
        for path in pages.values():  # warm up (and fill the cache)
            call(site, path)
        call(trivial, "/")
        for _ in range(options.requests):
            times[("trivial", "-")].append(call(trivial, "/")[0])
            for name, path in pages.items():
                before = server_cpu(connection)
                times.setdefault((name, mode), []).append(call(site, path)[0])
                after = server_cpu(connection)
                if before is not None and after is not None and after[0] == before[0]:
                    database.setdefault((name, mode), []).append(after[1] - before[1])
    settings.PAGE_CACHE_ENABLED = True
    trivial_p50 = statistics.median(sample[0] for sample in times[("trivial", "-")])
    from django.core.cache import caches

    cache = type(caches["default"]).__name__
    print(
        f"{connection.vendor}, {cache}: {options.papers} papers, {options.authors} authors at "
        f"{options.conferences} conference(s), {options.awards} awards; "
        f"{options.requests} requests per page and mode, round-robin"
    )
    print(
        f"{'page':<16} {'mode':<5} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} {'DB CPU':>7} "
        f"{'ratio':>6} {'queries':>7} {'KB':>7}"
    )
    for (name, mode), samples in times.items():
        wall = [sample[0] for sample in samples]
        p50, p95 = statistics.median(wall) * 1000, percentile(wall, 95) * 1000
        cpu = statistics.median(sample[1] for sample in samples) * 1000
        server = database.get((name, mode))
        server = f"{statistics.median(server) * 1000:.2f}" if server else ""
        ratio = f"{trivial_p50 * 1000 / p50:.2f}" if mode == "warm" else ""
        fact = facts.get(name, {})
        queries = fact.get("queries", "") if mode == "cold" else ""
        size = f"{fact['html_kb']:.1f}" if mode == "cold" else ""
        print(
            f"{name:<16} {mode:<5} {p50:>8.2f} {p95:>8.2f} {cpu:>8.2f} {server:>7} {ratio:>6} "
            f"{queries!s:>7} {size:>7}"
        )


def server_cpu(connection):
    """``(pid, seconds)``: the CPU time the PostgreSQL server process of ``connection``
    (a Django connection) has used so far, from /proc/<pid>/schedstat (nanoseconds
    on a CPU), or None: another database, no connection yet, or a server process
    this machine does not show (a server elsewhere) or lets this user read."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    pid = connection.connection.info.backend_pid
    try:
        with open(f"/proc/{pid}/schedstat") as stat:
            return pid, int(stat.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def percentile(samples, percent):
    """The ``percent``th percentile of ``samples`` (nearest rank)."""
    ordered = sorted(samples)
    return ordered[max(0, round(percent / 100 * len(ordered)) - 1)]


def profile(pages, options):
    """Print cProfile's top 40 functions (by own time and cumulative) for one page."""
    from django.conf import settings

    name, warm = options.profile.removesuffix("-warm"), options.profile.endswith("-warm")
    path = pages[name]
    site, _trivial = handlers()
    settings.PAGE_CACHE_ENABLED = warm
    call(site, path)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(options.requests):
        call(site, path)
    profiler.disable()
    for order in ("tottime", "cumulative"):
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats(order).print_stats(40)
        print(stream.getvalue())
    if options.callees:
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_callees(
            options.callees
        )
        print(stream.getvalue())
    print(json.dumps({"page": name, "warm": warm, "requests": options.requests}))


if __name__ == "__main__":
    sys.exit(main())
