"""Benchmark import_conference on a synthetic conference of 5,000 papers and 15,000 authors.

Run with ``make bench-import`` (or ``.venv/bin/python benchmarks/import_conference.py``).
It writes the fixture to a temporary directory, migrates a fresh SQLite database
there, and prints the wall time of each step in seconds:

- validate: read and check the file (``read_fixture``), no comparison;
- dry-run: what ``import_conference --dry-run`` does (check and compare, no write);
- import: the first import into the empty database (everything created), run as an
  operator runs it, ``manage.py import_conference`` in a process of its own, whose peak
  memory (resident set size, as the kernel counts it) is printed too;
- re-import: the same file again (nothing to change).

The targets: from the issue "New conferences", the import under 60 s on SQLite on a
2-core machine; from issue 32, its peak memory under 1 GB at 50,000 papers (``--papers
50000 --authors 150000``). The script exits non-zero when the import takes longer.
Options: ``--papers N`` (default 5000), ``--authors N`` (default 15000), ``--keep``
(leave the temporary directory with the fixture and database; removed otherwise).
"""

import argparse
import json
import os
import shutil
import subprocess  # nosec B404  # runs our own manage.py, arguments as a list, no shell
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60
AUTHORS_PER_PAPER = 4
INSTITUTIONS = 300


# Words for the synthetic titles, so that searches (``?q=prediction``) find some papers.
TITLE_WORDS = [
    "Learning",
    "Prediction",
    "Graphs",
    "Transformers",
    "Diffusion",
    "Optimisation",
    "Robustness",
    "Inference",
    "Language",
    "Vision",
    "Reinforcement",
    "Kernels",
    "Sparsity",
    "Causality",
    "Privacy",
    "Fairness",
]


def conference_slug(index):
    """The slug of synthetic conference ``index`` (0 is ``synth-2030``, 1 ``synth-2029``...)."""
    return f"synth-{2030 - index}"


def award_slug(index):
    """The slug of synthetic award ``index`` (0 is ``best-paper``)."""
    return "best-paper" if index == 0 else f"award-{index}"


def synthetic_fixture(papers, authors, conferences=1, awards=1, entries_per_award=20):
    """A fixture (a list of objects) of ``papers`` papers and ``authors`` authors.

    Papers are dealt round-robin over ``conferences`` conferences of one venue (paper
    ``p`` goes to conference ``p % conferences``), and so are ``awards`` awards, each
    with ``entries_per_award`` papers of its conference: the first half winners, the
    rest honourable mentions. Every paper has AUTHORS_PER_PAPER authors (cycling
    through all authors, so each one appears), one affiliation per authorship, one
    link; both languages are filled on the conferences and papers. The defaults are
    the import benchmark's: one conference, one award with 10 winners and 10
    honourable mentions.
    """
    objects = [
        {
            "model": "papers.venue",
            "fields": {"slug": "synth", "acronym": "SYN", "name_en": "Synthetic"},
        },
    ]
    objects += [
        {
            "model": "papers.conference",
            "fields": {
                "venue": ["synth"],
                "slug": conference_slug(c),
                "year": 2030 - c,
                "name_en": f"Synthetic {2030 - c}",
                "name_zh_hans": f"合成会议 {2030 - c}",
                "start_date": f"{2030 - c}-07-01",
                "end_date": f"{2030 - c}-07-07",
                "website": "https://synth.example.org/",
                "status": "published",
            },
        }
        for c in range(conferences)
    ]
    objects += [
        {
            "model": "papers.institution",
            "fields": {
                "slug": f"inst-{i}",
                "name_en": f"Institute {i}",
                "name_zh_hans": f"研究所 {i}",
            },
        }
        for i in range(INSTITUTIONS)
    ]
    objects += [
        {
            "model": "papers.author",
            "fields": {"slug": f"author-{i}", "name": f"Author {i}", "homepage": "", "orcid": ""},
        }
        for i in range(authors)
    ]
    next_author = 0
    words = TITLE_WORDS
    for p in range(papers):
        slug = f"paper-{p}"
        title = (
            f"{words[p % 16]} and {words[p // 16 % 16]} for {words[p // 256 % 16]}: "
            f"Synthetic Paper {p}"
        )
        objects.append(
            {
                "model": "papers.paper",
                "fields": {
                    "slug": slug,
                    "title_en": title,
                    "title_zh_hans": f"合成论文 {p}",
                    "abstract_en": "An abstract of a few sentences. " * 8,
                    "abstract_zh_hans": "",
                    "conference": [conference_slug(p % conferences)],
                    "pages": f"{p * 10 + 1}-{p * 10 + 10}",
                    "status": "published",
                },
            }
        )
        chosen = set()
        while len(chosen) < AUTHORS_PER_PAPER:
            chosen.add(next_author % authors)
            next_author += 1
        for position, author in enumerate(sorted(chosen), start=1):
            objects.append(
                {
                    "model": "papers.authorship",
                    "fields": {
                        "paper": [slug],
                        "author": [f"author-{author}"],
                        "position": position,
                        "affiliations": [[f"inst-{(author + p) % INSTITUTIONS}"]],
                    },
                }
            )
        objects.append(
            {
                "model": "papers.paperlink",
                "fields": {
                    "paper": [slug],
                    "kind": "pdf",
                    "url": f"https://synth.example.org/{slug}.pdf",
                },
            }
        )
    half = max(1, entries_per_award // 2)
    levels = [("winner", "Winner"), ("honourable-mention", "Honourable mention")]
    for a in range(awards):
        conference = a % conferences
        key = [conference_slug(conference), award_slug(a)]
        objects.append(
            {
                "model": "papers.award",
                "fields": {
                    "conference": [key[0]],
                    "slug": key[1],
                    "name_en": "Best Paper" if a == 0 else f"Award {a}",
                    "position": a // conferences,
                    "status": "published",
                },
            }
        )
        objects += [
            {
                "model": "papers.awardlevel",
                "fields": {
                    "award": key,
                    "slug": slug,
                    "name_en": name,
                    "name_plural_en": name + "s",
                    "position": position,
                },
            }
            for position, (slug, name) in enumerate(levels, start=1)
        ]
        first = a // conferences * entries_per_award  # this award's papers of the conference
        objects += [
            {
                "model": "papers.awardentry",
                "fields": {
                    "award": key,
                    "paper": [f"paper-{conference + conferences * (first + i)}"],
                    "level": [*key, "winner" if i < half else "honourable-mention"],
                    "position": i % half,
                },
            }
            for i in range(entries_per_award)
            if conference + conferences * (first + i) < papers
        ]
    return objects


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--authors", type=int, default=15000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    options = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="bench-import-"))
    try:
        return run(options, workdir)
    finally:
        if not options.keep:
            shutil.rmtree(workdir)


def expect(condition, failure):
    """Stop the benchmark with ``failure`` unless ``condition`` holds (a check that,
    unlike assert, also runs under ``python -O``)."""
    if not condition:
        raise SystemExit(f"FAIL: {failure}")


def import_in_a_process(path):
    """Run ``manage.py import_conference path`` in a process of its own (the environment's
    database); return its peak resident set size in bytes (Linux counts it in KiB)."""
    megabytes = path.stat().st_size // 2**20 + 1
    command = [sys.executable, str(ROOT / "manage.py"), "import_conference", str(path)]
    command += ["--verbosity", "0", "--max-file-size", str(megabytes)]
    process = subprocess.Popen(command, cwd=ROOT)  # nosec B603  # our command, no shell
    _, status, usage = os.wait4(process.pid, 0)  # Popen.wait gives no resource usage
    process.returncode = os.waitstatus_to_exitcode(status)
    expect(process.returncode == 0, "import_conference failed")
    return usage.ru_maxrss * 1024


def run(options, workdir):
    """Generate the fixture in ``workdir``, time the steps, print the figures."""
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    os.environ["DJANGO_MEDIA_ROOT"] = str(workdir / "media")
    os.environ.setdefault("DJANGO_INSECURE_DEV", "true")
    os.environ["DJANGO_SETTINGS_MODULE"] = "awardsite.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from catalogue.models import Author, Authorship, Paper
    from importing.pipeline import import_fixture, plan_import, read_fixture

    call_command("migrate", verbosity=0)
    objects = synthetic_fixture(options.papers, options.authors)
    count = len(objects)
    path = workdir / "synthetic.json"
    path.write_text(json.dumps(objects, ensure_ascii=False, indent=2), encoding="utf-8")
    del objects  # not to be counted in what the steps below hold
    size = path.stat().st_size
    print(f"fixture: {path} ({count} objects, {size / 1e6:.1f} MB)")
    print(f"{options.papers} papers, {options.authors} authors, SQLite at {workdir}")

    validate, fixture = timed(lambda: read_fixture(path, max_bytes=size))
    expect(not fixture.problems, f"the fixture has problems: {fixture.problems[:5]}")
    del fixture
    dry_run, plan = timed(lambda: plan_import(read_fixture(path, max_bytes=size)))
    expect(plan.count("create") == count, "the dry run does not create every object")
    del plan
    first, peak = timed(lambda: import_in_a_process(path))
    again, plan = timed(lambda: import_fixture(path, max_bytes=size))
    expect(not plan.writes_anything, "importing the same file again changes something")
    counts = (Paper.objects.count(), Author.objects.count(), Authorship.objects.count())
    wanted = (options.papers, options.authors, options.papers * AUTHORS_PER_PAPER)
    expect(counts == wanted, f"imported {counts} papers, authors, authorships; not {wanted}")

    print(f"validate   {validate:7.2f} s")
    print(f"dry-run    {dry_run:7.2f} s")
    print(f"import     {first:7.2f} s   (target: under {TARGET_SECONDS} s)")
    print(f"  peak memory {peak / 2**20:7.0f} MB (resident, the import's process)")
    print(f"re-import  {again:7.2f} s   (nothing to change)")
    if first >= TARGET_SECONDS:
        print("FAIL: the import is slower than the target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
