"""Size, queries and server time of the pages that grow with the data, at 5,000 papers.

Run with ``.venv/bin/python benchmarks/page_sizes.py`` (SQLite in a temporary
directory) or with ``--database-url postgres://...`` (an empty or scratch PostgreSQL
database: the script migrates it and imports the synthetic conference of
benchmarks/import_conference.py into it; ``make test-postgres``'s scripts/postgres.sh
makes one). Pages are fetched in-process with Django's test client, so the figures
are Django's own time (no HTTP server, no cache); ``make bench`` measures the served
site. For each page it prints the status, the HTML size in KB, the number of SQL
queries, and the median and maximum of ``--rounds`` timed requests in milliseconds.

``--root DIR`` runs the same pages against another checkout of the project (for a
before/after comparison, e.g. ``git archive main | tar -x -C DIR``); a page that
checkout does not have is listed with its 404.
Options: ``--papers N`` (default 5000), ``--authors N`` (default 15000), ``--rounds N``
(default 5), ``--only conference,search`` (pages whose name contains one of these).
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from import_conference import synthetic_fixture  # noqa: E402

PAGES = [
    ("conference", "/en/conferences/synth-2030/"),
    ("conference p.2", "/en/conferences/synth-2030/page/2/"),
    ("author", "/en/authors/author-7/"),
    ("paper", "/en/papers/paper-4321/"),
    ("sitemap.xml", "/sitemap.xml"),
    ("sitemap papers", "/sitemap-papers.xml"),
    ("sitemap authors", "/sitemap-authors.xml"),
    ("search 'paper'", "/en/search/?q=paper"),
    ("search 'number 4321'", "/en/search/?q=number+4321"),
    ("search '合成论文 4321'", "/en/search/?q=%E5%90%88%E6%88%90%E8%AE%BA%E6%96%87+4321"),
    ("search 'author 77'", "/en/search/?q=author+77"),
    ("search 'institute 12'", "/en/search/?q=institute+12"),
    ("conference cite.bib", "/en/conferences/synth-2030/cite.bib"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--authors", type=int, default=15000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default="", help="default: SQLite in a temp dir")
    parser.add_argument("--only", default="", help="comma-separated parts of page names")
    parser.add_argument("--root", type=Path, default=HERE.parent, help="project checkout")
    options = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    try:
        return run(options, workdir)
    finally:
        shutil.rmtree(workdir)


def run(options, workdir):
    """Set up Django on ``options.root``, import the data, print one line per page."""
    os.environ["DATABASE_URL"] = options.database_url or f"sqlite:///{workdir / 'db.sqlite3'}"
    os.environ["DJANGO_MEDIA_ROOT"] = str(workdir / "media")
    os.environ["DJANGO_STATIC_ROOT"] = str(workdir / "static")
    os.environ["DJANGO_INSECURE_DEV"] = "true"
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_LOG_LEVEL"] = "ERROR"
    # Every request rendered: with the page cache on, all but the first round of a page
    # were answers from the cache (found by a tester).
    os.environ["DJANGO_PAGE_CACHE"] = "false"
    os.environ["DJANGO_SETTINGS_MODULE"] = "awardsite.settings"
    sys.path.insert(0, str(options.root.resolve()))
    import django

    django.setup()
    import json

    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from importing.pipeline import import_fixture

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    path = workdir / "synthetic.json"
    objects = synthetic_fixture(options.papers, options.authors)
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    start = time.perf_counter()
    import_fixture(path)
    print(f"{options.root}: {connection.vendor}, {options.papers} papers, ", end="")
    print(f"{options.authors} authors, imported in {time.perf_counter() - start:.1f} s")

    client = Client()
    print(f"{'page':24} {'status':>6} {'KB':>9} {'queries':>8} {'median ms':>10} {'max ms':>8}")
    wanted = [part for part in options.only.split(",") if part]
    for name, url in PAGES:
        if wanted and not any(part in name for part in wanted):
            continue
        queries = []
        with connection.execute_wrapper(_counting(queries)):
            response = client.get(url)
            size = len(_body(response))
        times = []
        for _ in range(options.rounds):
            start = time.perf_counter()
            _body(client.get(url))
            times.append((time.perf_counter() - start) * 1000)
        print(
            f"{name:24} {response.status_code:>6} {size / 1000:>9.1f} {len(queries):>8} "
            f"{statistics.median(times):>10.1f} {max(times):>8.1f}"
        )
    return 0


def _counting(queries):
    """A database execute wrapper that appends each SQL statement to ``queries``."""

    def wrapper(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    return wrapper


def _body(response):
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


if __name__ == "__main__":
    sys.exit(main())
