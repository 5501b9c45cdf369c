"""Render every public page into a folder, to compare two versions of the site.

A refactoring that must not change what visitors see (issue 28: "public pages identical
before and after, whitespace aside, in both languages") is checked by running this on
the old code and on the new, then comparing the folders::

    .venv/bin/python benchmarks/page_snapshot.py render /tmp/before   # on the old code
    .venv/bin/python benchmarks/page_snapshot.py render /tmp/after    # on the new code
    .venv/bin/python benchmarks/page_snapshot.py compare /tmp/before /tmp/after

``render`` builds two data sets, each in a fresh SQLite database of its own under the
folder (through the importer, as ``manage.py import_conference`` does): the shipped
content (fixtures/icml.json) and a synthetic one (benchmarks/import_conference.py's
``synthetic_fixture``; ``--papers``, default 300, over 3 conferences with 6 awards).
For each it renders, with Django's test client and the page cache off, every page the
static publisher lists (publishing/site.py ``pages()``: every route, every object,
every page of every paginated list, in every language) whose answer is HTML, a few
searches in each language, and, logged in as a superuser, the preview of every
conference, award and paper (``?preview=1``). Each page is written as a file named
after its address; ``index.txt`` lists the addresses with their status codes.

``compare`` prints the pages whose HTML differs once runs of white space are made one
space and the per-request random values (CSP nonces, CSRF tokens) are blanked, and
those found in one folder only, and any data set whose addresses or status codes
(index.txt) differ; its exit status is 1 if any differ, else 0.

Timestamps: both runs import at a different moment, so pages that show the time of an
import could differ; the HTML pages compared here show none (feeds and sitemaps,
which do, are not HTML and are left out).
"""

import argparse
import difflib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(__file__).resolve().parent

# Searches rendered in every language: words of the shipped and synthetic data, a
# filter, a second page, and a search that finds nothing.
SEARCHES = (
    "q=learning",
    "q=prediction+learning",
    "q=synthetic&page=2",
    "q=model",
    "q=no-such-word-anywhere",
    "q=&year=2025",
    "q=%E5%AD%A6%E4%B9%A0",  # 学习
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    render_parser = commands.add_parser("render", help="render every public page into FOLDER")
    render_parser.add_argument("folder", type=Path)
    render_parser.add_argument("--papers", type=int, default=300, help="synthetic papers")
    compare_parser = commands.add_parser("compare", help="compare two rendered folders")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    compare_parser.add_argument("--show", type=int, default=3, help="diffs printed in full")
    options = parser.parse_args()
    if options.command == "render":
        return render(options)
    return compare(options.before, options.after, options.show)


def render(options):
    """Build both data sets, one database each, and render their pages (see above)."""
    folder = options.folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="page-snapshot-"))
    os.environ.update(
        DATABASE_URL=f"sqlite:///{workdir / 'snapshot.sqlite3'}",
        DJANGO_INSECURE_DEV="true",
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_PAGE_CACHE="false",
        DJANGO_MEDIA_ROOT=str(workdir / "media"),
        DJANGO_STATIC_ROOT=str(workdir / "static"),
        DJANGO_LOG_LEVEL="ERROR",
        DJANGO_SETTINGS_MODULE="awardsite.settings",
    )
    os.environ.pop("REDIS_URL", None)
    sys.path[:0] = [str(ROOT), str(BENCHMARKS)]
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from import_conference import synthetic_fixture

    call_command("collectstatic", "--noinput", verbosity=0)
    synthetic = workdir / "synthetic.json"
    objects = synthetic_fixture(
        options.papers, 2 * options.papers, conferences=3, awards=6, entries_per_award=10
    )
    synthetic.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    data_sets = {"icml": ROOT / "fixtures" / "icml.json", "synthetic": synthetic}
    for name, fixture in data_sets.items():
        connection.close()
        database = workdir / f"{name}.sqlite3"
        connection.settings_dict["NAME"] = str(database)
        count = render_data_set(fixture, folder / name)
        print(f"{name}: {count} pages in {folder / name}")
    return 0


def render_data_set(fixture, folder):
    """Import ``fixture`` into the (empty) database and render its pages into ``folder``;
    returns how many pages were written."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.utils import translation
    from django_distill.request import generate_uri

    from catalogue.models import Award, Conference, Paper
    from publishing.site import pages

    call_command("migrate", verbosity=0)
    call_command("import_conference", str(fixture), verbosity=0)
    folder.mkdir(parents=True, exist_ok=True)
    visitor = Client()
    addresses = []
    for route, kwargs, language in pages():
        with translation.override(language):
            addresses.append(generate_uri(route.namespace, route.name, kwargs))
    for code in ("en", "zh-hans"):
        addresses += [f"/{code}/search/?{query}" for query in SEARCHES]
    index = []
    for address in dict.fromkeys(addresses):
        index.append(write_page(visitor, address, folder))
    editor = Client()
    editor.force_login(get_user_model().objects.create_superuser("snapshot", "", "x"))
    previews = []
    for model in (Conference, Award, Paper):
        for obj in model.objects.order_by("pk"):
            for code in ("en", "zh-hans"):
                with translation.override(code):
                    previews.append(obj.get_absolute_url() + "?preview=1")
    for address in previews:
        index.append(write_page(editor, address, folder))
    written = [line for line in index if line is not None]
    (folder / "index.txt").write_text("\n".join(written) + "\n", encoding="utf-8")
    return len(written)


def write_page(client, address, folder):
    """GET ``address``; write an HTML answer to its file in ``folder``. Returns the line
    of index.txt (status and address), or None for an answer that is not HTML."""
    response = client.get(address)
    if not response.get("Content-Type", "").startswith("text/html"):
        return None
    body = b"".join(response) if response.streaming else response.content
    (folder / file_name(address)).write_bytes(body)
    return f"{response.status_code} {address}"


def file_name(address):
    """A file name for ``address``: the address, quoted, with ``.html``."""
    return quote(address, safe="") + ".html"


# Values that differ on every request: CSP nonces and CSRF tokens.
RANDOM = re.compile(r'(nonce|csrfmiddlewaretoken" value|csrf-token" content)="[^"]*"')
SPACES = re.compile(r"\s+")


def normalised(path):
    """The text of ``path`` with runs of white space made one space, between tags too
    (``> <`` made ``><``), and the per-request random values blanked."""
    text = RANDOM.sub(r'\1=""', path.read_text(encoding="utf-8"))
    text = SPACES.sub(" ", text)
    return re.sub(r"> <", "><", text)


def compare(before, after, show):
    """Print the pages that differ between folders ``before`` and ``after`` (see the
    module's docstring); 1 if any differ or are missing, else 0."""
    old = {path.relative_to(before) for path in before.rglob("*.html")}
    new = {path.relative_to(after) for path in after.rglob("*.html")}
    problems = 0
    for path in sorted(old ^ new):
        print(f"only in {'before' if path in old else 'after'}: {path}")
        problems += 1
    shown = 0
    for path in sorted(old & new):
        first, second = normalised(before / path), normalised(after / path)
        if first == second:
            continue
        problems += 1
        print(f"differs: {path}")
        if shown < show:
            shown += 1
            lines = difflib.unified_diff(
                first.replace("><", ">\n<").splitlines(),
                second.replace("><", ">\n<").splitlines(),
                "before",
                "after",
                lineterm="",
                n=1,
            )
            print("\n".join(list(lines)[:40]))
    for index in sorted(before.glob("*/index.txt")):
        other = after / index.relative_to(before)
        if not other.exists() or index.read_text() != other.read_text():
            print(f"status codes differ: {index.relative_to(before)}")
            problems += 1
    print(f"{len(old & new)} pages in both, {problems} differing or missing")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
