"""Benchmark what an incremental ``publish_site`` spends deciding which pages to render
(publishing/changes.py) on the benchmark's data set.

Run with ``.venv/bin/python benchmarks/publish_changes.py [DATABASE]``, DATABASE an
SQLite file made by ``benchmarks/server_time.py`` (default
``benchmarks/.server_time10.sqlite3``, the 5,000-paper set ``make bench`` builds). It
works on a copy, so the file is left as it was. Prints, in seconds of wall-clock time
(and of CPU time, steadier on a busy machine): the fingerprint,
the snapshot, writing and reading it (and its size), comparing two equal snapshots, and
for a few edits the whole decision (snapshot, read, compare) with the number of pages'
objects it names. The figures are the source of ``snapshot()``'s docstring.
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS.parent))
database = Path(sys.argv[1] if len(sys.argv) > 1 else BENCHMARKS / ".server_time10.sqlite3")
if not database.is_file():
    sys.exit(f"No database at {database}: make one with benchmarks/server_time.py.")
work = Path(tempfile.mkdtemp(prefix="publish-changes-"))
shutil.copy(database, work / "db.sqlite3")
os.environ["DATABASE_URL"] = f"sqlite:///{work / 'db.sqlite3'}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")
os.environ.setdefault("DJANGO_INSECURE_DEV", "true")

import django  # noqa: E402

django.setup()

from catalogue.models import Author, Conference, Institution, Paper  # noqa: E402
from publishing import changes as publish_changes  # noqa: E402


def timed(function, *args):
    """``function(*args)`` and the seconds it took: "wall (CPU)", the CPU time being the
    figure to trust on a busy machine (SQLite runs in this process, so it counts)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return result, f"{time.perf_counter() - start:5.2f} ({time.process_time() - cpu:4.2f})"


def decide(path):
    """What a re-publish does first: read the last snapshot, take one, compare them."""
    old = publish_changes.read(path)
    new = publish_changes.snapshot()
    return new, publish_changes.affected(old, new)


def describe(pages):
    return (
        f"{len(pages.papers)} papers, {len(pages.authors)} authors, "
        f"{len(pages.conferences)} conferences, {len(pages.awards)} awards, "
        f"A-Z {'yes' if pages.author_index else 'no'}"
    )


def main():
    path = work / publish_changes.SNAPSHOT
    _, seconds = timed(publish_changes.fingerprint)
    print(f"fingerprint            {seconds} s")
    content, seconds = timed(publish_changes.snapshot)
    pages = sum(len(table) for table in content["pages"].values())
    print(f"snapshot               {seconds} s  ({pages} hashes, fingerprint included)")
    _, seconds = timed(publish_changes.write, content, path)
    print(f"write                  {seconds} s  ({path.stat().st_size / 1e6:.1f} MB)")
    _, seconds = timed(publish_changes.read, path)
    print(f"read                   {seconds} s")
    _, seconds = timed(publish_changes.affected, content, content)
    print(f"affected, no change    {seconds} s")

    paper = Paper.objects.published().order_by("pk").first()
    author = Author.objects.published().order_by("pk").first()
    edits = {
        "paper title": lambda: Paper.objects.filter(pk=paper.pk).update(title_en="Retitled"),
        "author name": lambda: Author.objects.filter(pk=author.pk).update(name="Renamed"),
        "institution": lambda: Institution.objects.filter(
            pk=Institution.objects.order_by("pk").first().pk
        ).update(name_en="Renamed"),
        "conference": lambda: Conference.objects.filter(
            pk=Conference.objects.order_by("pk").first().pk
        ).update(name_en="Renamed"),
    }
    for name, edit in edits.items():
        edit()
        (new, pages), seconds = timed(decide, path)
        publish_changes.write(new, path)
        print(f"{name:22} {seconds} s  {describe(pages)}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
