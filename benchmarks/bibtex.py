"""Benchmark reading a large .bib file (importing/bibtex.py).

Run with ``.venv/bin/python benchmarks/bibtex.py [PAPERS]`` (default 5,000, about a
large conference's proceedings). Makes up PMLR-style entries, each with a title
holding an accent and maths, and four authors drawn from a pool of 4 x PAPERS
made-up names with LaTeX accents (so most names occur once, as in a real
proceedings), then prints the seconds parse_bibtex takes, and per paper.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")
os.environ.setdefault("DJANGO_INSECURE_DEV", "true")

import django  # noqa: E402

django.setup()

from importing.bibtex import parse_bibtex  # noqa: E402
from importing.latex import latex_to_text  # noqa: E402

SYLLABLES = [r"K{\"a}", "ri", r"Ol{\'a}", "ne", r"\c{c}o", "ta", r"{\aa}s", "mu", "vel", "do"]


def word(number, length):
    """A made-up word of ``length`` syllables, different for each ``number``."""
    parts = []
    for _ in range(length):
        number, index = divmod(number, len(SYLLABLES))
        parts.append(SYLLABLES[index])
    return "".join(parts).capitalize()


def bib(papers):
    entries = []
    for number in range(papers):
        authors = " and ".join(
            f"{word(4 * number + author, 4)}, {word(7 * number + author, 2)}" for author in range(4)
        )
        entries.append(
            f"@InProceedings{{pmlr-v999-fict{number}a,\n"
            f"  title = {{{word(number, 5)} Flows with $\\ell_{{{number % 9}}}$ Costs}},\n"
            f"  author = {{{authors}}},\n"
            f"  pages = {{{number}--{number + 9}}},\n  year = {{2099}},\n"
            f"  pdf = {{https://raw.githubusercontent.com/mlresearch/v999/main/assets/"
            f"fict{number}a/fict{number}a.pdf}},\n"
            f"  url = {{https://proceedings.mlr.press/v999/fict{number}a.html}}\n}}\n"
        )
    return "\n".join(entries)


def main():
    papers = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    text = bib(papers)
    latex_to_text.cache_clear()
    start = time.perf_counter()
    read = parse_bibtex(text, source="benchmark.bib")
    seconds = time.perf_counter() - start
    if len(read) != papers:
        sys.exit(f"read {len(read)} papers of {papers}")
    print(
        f"{papers} papers ({len(text) / 1e6:.1f} MB): {seconds:.1f} s, "
        f"{1000 * seconds / papers:.1f} ms per paper"
    )


if __name__ == "__main__":
    main()
